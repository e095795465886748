// The source view, <ol id="src">: every child is a line, <li id=L12> (indexer/site/render.py),
// and its text content is the document text exactly. This module reads offsets from it and
// marks spans in it.
import { codePoints, unitsAt } from "./codepoints.js";
import { charSpanOf, lineRangeOf } from "./selectors.js";

export const src = () => document.getElementById("src");
const lineEls = () => Array.from(src().children);

/** A rendered block's first and last source lines: `data-line-end` is left out when it is the first. */
export function blockLines(el) {
  const a = +el.dataset.lineStart;
  return [a, el.dataset.lineEnd === undefined ? a : +el.dataset.lineEnd];
}

/** The document text as code points. */
export const sourcePoints = () => Array.from(src().textContent);

// The line numbers a reader follows (with the keyboard too) to put a line in the address and cite
// it. The page carries bare lines (CSS draws their numbers): the links are made here, after the
// line's passage and page marks, where the number is drawn.
export function linkLineNumbers() {
  for (const line of lineEls()) {
    if (line.querySelector(":scope > a:not(.pg)")) continue; // a page written with its links (render 2)
    const link = document.createElement("a");
    link.href = "#" + line.id;
    link.setAttribute("aria-label", "line " + line.id.slice(1));
    let after = null;
    for (const child of line.childNodes) {
      if (child.nodeType !== 1 || child.textContent !== "") break;
      after = child;
    }
    line.insertBefore(link, after ? after.nextSibling : line.firstChild);
  }
}

/** Code-point offset where each line starts (index 0 is line 1), then the text's length. */
export function lineStarts() {
  const starts = [];
  let at = 0;
  for (const el of lineEls()) {
    starts.push(at);
    at += codePoints(el.textContent);
  }
  starts.push(at);
  return starts;
}

/** The code points of the source text before (node, offset), a point inside the source view. */
export function sourceOffset(node, offset) {
  const range = document.createRange();
  range.setStart(src(), 0);
  range.setEnd(node, offset);
  return codePoints(range.toString());
}

/** The text a selector's span holds in the source view (whole lines for a line selector). */
export function spanText(sel) {
  const points = sourcePoints();
  const starts = lineStarts();
  if (sel.kind === "lines") return points.slice(starts[sel.a - 1], starts[Math.min(sel.b, starts.length - 1)]).join("");
  const [a, b] = charSpanOf(sel, starts);
  return points.slice(a, b).join("");
}

// Wrap code points [a, b) of the source text in <mark class="cited">, text node by text node.
function markChars(a, b) {
  const walker = document.createTreeWalker(src(), NodeFilter.SHOW_TEXT);
  const pieces = [];
  let at = 0, node;
  while ((node = walker.nextNode())) {
    const s = node.data;
    let i = 0, startUnit = -1, endUnit = -1;
    while (i <= s.length) {
      if (at === a && startUnit < 0) startUnit = i;
      if (at === b) {
        endUnit = i;
        break;
      }
      if (i === s.length) break;
      i += unitsAt(s, i);
      at++;
    }
    if (startUnit < 0 && at > a) startUnit = 0;
    if (startUnit >= 0) pieces.push([node, startUnit, endUnit < 0 ? s.length : endUnit]);
    if (endUnit >= 0 || at >= b) break;
  }
  let first = null;
  for (const [n, x, y] of pieces) {
    if (y <= x) continue;
    const range = document.createRange();
    range.setStart(n, x);
    range.setEnd(n, y);
    const mark = document.createElement("mark");
    mark.className = "cited";
    range.surroundContents(mark);
    first = first || mark;
  }
  return first;
}

/** Highlight the span `sel` names (its lines, the rendered blocks over them, its characters). */
const atTop = []; // the lines given a scroll margin by the last highlight

export function highlight(sel) {
  atTop.splice(0).forEach((el) => el.style.removeProperty("scroll-margin-top"));
  document.querySelectorAll(".hl").forEach((el) => el.classList.remove("hl"));
  document.querySelectorAll("mark.cited").forEach((m) => m.replaceWith(...m.childNodes));
  if (src()) src().normalize();
  if (!sel || !src()) return;
  const starts = lineStarts();
  const [first, last] = lineRangeOf(sel, starts);
  for (let n = first; n <= last; n++) {
    const el = document.getElementById("L" + n);
    if (el) el.classList.add("hl");
  }
  document.querySelectorAll("[data-line-start]").forEach((el) => {
    const [a, b] = blockLines(el);
    if (a <= last && b >= first && !el.querySelector("[data-line-start]")) el.classList.add("hl");
  });
  const span = charSpanOf(sel, starts);
  let target = document.getElementById("L" + first);
  if (span) target = markChars(span[0], span[1]) || target;
  if (!target) return;
  // Lines the first screen shows whole are shown with the page's title above them: centred, they
  // would slide the title under the sticky banner. The browser scrolls to the address's line
  // again as the page loads; a scroll margin as tall as the page above the line keeps it at the top.
  const bottom = target.getBoundingClientRect().bottom + window.scrollY;
  if (bottom > window.innerHeight) {
    target.scrollIntoView({ block: "center" });
    return;
  }
  for (const el of new Set([target, document.getElementById("L" + first)])) {
    if (!el) continue;
    el.style.scrollMarginTop = `${Math.ceil(el.getBoundingClientRect().top + window.scrollY)}px`;
    atTop.push(el);
  }
  window.scrollTo(0, 0);
}
