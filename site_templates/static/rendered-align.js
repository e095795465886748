// A rendered block's text aligned with its Markdown source, code point by code point. A selection
// in the rendered view then maps to the exact code points of the source, widened to keep the
// markup it opens or closes whole. The markup skipped between two characters: emphasis and code
// marks, a link's brackets and destination, entities, a line break. Pure functions over arrays
// of code points, so that they are tested without a page.

const MARKS = new Set(["*", "_", "`", "~"]);
export const isSpace = (c) => c === " " || c === "\n" || c === "\t" || c === "\r" || c === "\u00a0";

/** For each code point of `rendered`, its index in `source` (-1 when it has none). */
export function alignRendered(rendered, source) {
  const map = [];
  let j = 0;
  for (const c of rendered) {
    let k = j;
    while (k < source.length && source[k] !== c && !(isSpace(c) && isSpace(source[k]))) k++;
    if (k === source.length) {
      map.push(-1);
      continue;
    }
    map.push(k);
    j = k + 1;
  }
  return map;
}

// A reST role's name before its text: ":term:", ":py:meth:".
const ROLE = ":[A-Za-z][\\w.+-]*(?::[\\w.+-]+)*:";
// MkDocs' inline marks: an icon's colons (`:smile:`), keys' and marks' signs (`++ctrl++`, `==x==`, `^^x^^`).
const MARKUP_ONLY = new RegExp(`^(?:[*_\`~\\s<>![\\]\\\\:+=^]|\\]\\([^)]*\\)|\\]\\[[^\\]]*\\]|&[#\\w]+;|${ROLE}\`)*$`);
const ROLE_BEFORE = new RegExp(`${ROLE}$`);

/** Is source[a, b) markup only: delimiters, a link's "](destination)", an entity, a reST role's name,
 * MkDocs' marks, spaces? (An attribute list is not: the alignment may take its words for the text's.) */
export function markupOnly(source, a, b) {
  const run = source.slice(a, b).join("");
  return MARKUP_ONLY.test(run);
}

// Runs of one mark ("**", "`") in points[i, j) pair up like brackets: the runs left unpaired.
function unpairedMarks(points, i, j) {
  const stack = [];
  for (let k = i; k < j; k++) {
    if (!MARKS.has(points[k])) continue;
    let n = 1;
    while (k + n < j && points[k + n] === points[k]) n++;
    const run = points[k].repeat(n);
    if (stack.length && stack[stack.length - 1] === run) stack.pop();
    else stack.push(run);
    k += n - 1;
  }
  return stack;
}

// Keep emphasis, code and link markup whole: an opening mark whose closing one the span holds
// (or the reverse) is taken in, and so is a link's "](destination)" when its whole text is selected.
// `points` is the block's source, starting at code point `from` of the document; [a, b) the span.
export function widenToMarkup(points, from, a, b) {
  let i = a - from, j = b - from;
  // An unpaired run is closed by the same run right after the span, or opened by one right before it.
  const runAt = (k, run) => points.slice(k, k + run.length).join("") === run;
  for (let guard = 0; guard < 8; guard++) {
    let changed = false;
    for (const run of unpairedMarks(points, i, j).reverse()) {
      if (runAt(j, run)) {
        j += run.length;
        changed = true;
      } else if (i >= run.length && runAt(i - run.length, run)) {
        i -= run.length;
        changed = true;
      }
      break;
    }
    const text = points.slice(i, j).join("");
    const opens = (text.match(/\[/g) || []).length, closes = (text.match(/\]/g) || []).length;
    if (opens > closes) {
      const rest = points.slice(j).join("");
      const m = /^\](?:\([^)\n]*\)|\[[^\]\n]*\])?/.exec(rest); // the link's whole text is selected
      if (m) {
        j += Array.from(m[0]).length;
        changed = true;
      }
    } else if (closes > opens && i > 0 && points[i - 1] === "[") {
      i--;
      changed = true;
    }
    if (!changed) break;
  }
  // A role's text taken in with its opening backtick takes its name too: `:term:` stays whole.
  const role = points[i] === "`" ? ROLE_BEFORE.exec(points.slice(Math.max(0, i - 40), i).join("")) : null;
  if (role) i -= Array.from(role[0]).length;
  return { kind: "chars", a: from + i, b: from + j };
}

// The source span of rendered code points [start, end) of a block: null when the alignment is not
// exact (a selected character without a source, or other text between two selected ones).
export function exactSourceSpan(rendered, points, from, start, end) {
  const map = alignRendered(rendered, points);
  while (start < end && isSpace(rendered[start])) start++;
  while (end > start && isSpace(rendered[end - 1])) end--;
  if (end <= start) return null;
  for (let i = start; i < end; i++) {
    if (map[i] < 0) return null;
    // Between two selected characters the source may hold markup only, never other text.
    if (i > start && map[i] - map[i - 1] > 1 && !markupOnly(points, map[i - 1] + 1, map[i])) return null;
  }
  return widenToMarkup(points, from, from + map[start], from + map[end - 1] + 1);
}
