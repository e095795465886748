// Selectors, the span part of a permalink or citation (`#L12`, `#L12-L18`, `#c120-340`,
// `#L12C5-L18C9`; indexer/text/citation.py's grammar), and the spans they name in a text
// whose lines start at `starts` (code-point offsets, index 0 is line 1, then the text's length).

/** The selector in a location hash, or null when it names no span. */
export function parseSelector(hash) {
  const s = decodeURIComponent((hash || "").replace(/^#/, ""));
  let m;
  if ((m = /^L(\d+)(?:-L(\d+))?$/.exec(s))) return { kind: "lines", a: +m[1], b: m[2] ? +m[2] : +m[1], text: s };
  if ((m = /^c(\d+)-(\d+)$/.exec(s))) return { kind: "chars", a: +m[1], b: +m[2], text: s };
  if ((m = /^L(\d+)C(\d+)-L(\d+)C(\d+)$/.exec(s))) {
    return { kind: "linecol", l1: +m[1], c1: +m[2], l2: +m[3], c2: +m[4], text: s };
  }
  return null;
}

/** `L3` or `L3-L7`. */
export function linesSelector(first, last) {
  return first === last ? `L${first}` : `L${first}-L${last}`;
}

/** The code points [a, b) a character selector names, or null for a line selector. */
export function charSpanOf(sel, starts) {
  if (sel.kind === "chars") return [sel.a, sel.b];
  if (sel.kind === "linecol") return [starts[sel.l1 - 1] + sel.c1 - 1, starts[sel.l2 - 1] + sel.c2 - 1];
  return null;
}

/** The first and last line a selector's span touches. */
export function lineRangeOf(sel, starts) {
  if (sel.kind === "lines") return [sel.a, sel.b];
  if (sel.kind === "linecol") return [sel.l1, sel.l2];
  const lineOf = (off) => {
    let n = 0;
    while (n + 1 < starts.length - 1 && starts[n + 1] <= off) n++;
    return n + 1;
  };
  return [lineOf(sel.a), lineOf(Math.max(sel.a, sel.b - 1))];
}

/** The selector of the same span `lineShift` lines (and `charShift` code points) on, or null. */
export function shiftedSelector(sel, lineShift, charShift) {
  if (sel.kind === "lines") return linesSelector(sel.a + lineShift, sel.b + lineShift);
  if (sel.kind === "linecol") return `L${sel.l1 + lineShift}C${sel.c1}-L${sel.l2 + lineShift}C${sel.c2}`;
  if (charShift === null) return null;
  return `c${sel.a + charShift}-${sel.b + charShift}`;
}

/** indexer.citations.resolve.span_citation's selector for [start, end) of `text`, in the unit `kind`. */
export function spanSelector(text, start, end, kind) {
  const starts = [0];
  Array.from(text).forEach((ch, i) => {
    if (ch === "\n") starts.push(i + 1);
  });
  const lineOf = (off) => {
    let n = 0;
    while (n < starts.length && starts[n] <= off) n++;
    return n;
  };
  if (kind === "chars") return `c${start}-${end}`;
  if (kind === "linecol") {
    const l1 = lineOf(start), l2 = lineOf(end);
    return `L${l1}C${start - starts[l1 - 1] + 1}-L${l2}C${end - starts[l2 - 1] + 1}`;
  }
  return linesSelector(lineOf(start), lineOf(Math.max(start, end - 1)));
}
