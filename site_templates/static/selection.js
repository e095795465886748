// The reader's selection as a span of the document: code points in the source view; in the
// rendered view, the exact code points of the source the selection shows (rendered-align.js),
// or the lines of the blocks it touches.
import { codePoints } from "./codepoints.js";
import { exactSourceSpan } from "./rendered-align.js";
import { blockLines, lineStarts, sourceOffset, sourcePoints, src } from "./source-view.js";

const blockOf = (node) => (node.nodeType === 1 ? node : node.parentElement).closest("[data-line-start]");

// A rendered block's source: its lines' code points, and the offset where they start.
function blockSource(block) {
  const starts = lineStarts();
  const [a, b] = blockLines(block);
  const from = starts[a - 1], to = starts[Math.min(b, starts.length - 1)];
  return { from, points: sourcePoints().slice(from, to) };
}

function renderedOffset(block, node, offset) {
  const range = document.createRange();
  range.setStart(block, 0);
  range.setEnd(node, offset);
  return codePoints(range.toString());
}

function exactRenderedSpan(r) {
  const block = blockOf(r.startContainer);
  if (!block || block !== blockOf(r.endContainer)) return null;
  const { from, points } = blockSource(block);
  const start = renderedOffset(block, r.startContainer, r.startOffset);
  const end = renderedOffset(block, r.endContainer, r.endOffset);
  return exactSourceSpan(Array.from(block.textContent), points, from, start, end);
}

// The selection's range with its ends moved into the first and last selected text of a block
// (a drag or a triple click often starts or ends between two blocks).
function tightRange(r) {
  const common = r.commonAncestorContainer;
  const walker = document.createTreeWalker(common.nodeType === 1 ? common : common.parentNode, NodeFilter.SHOW_TEXT);
  let first = null, last = null, node;
  while ((node = walker.nextNode())) {
    if (!r.intersectsNode(node) || !node.parentElement.closest("[data-line-start]")) continue;
    const a = node === r.startContainer ? r.startOffset : 0;
    const b = node === r.endContainer ? r.endOffset : node.data.length;
    if (b <= a || !node.data.slice(a, b).trim()) continue;
    if (!first) first = [node, a];
    last = [node, b];
  }
  if (!first) return r;
  const tight = document.createRange();
  tight.setStart(...first);
  tight.setEnd(...last);
  return tight;
}

const INEXACT = "The selection could not be matched to the source exactly: the cited span is the whole " +
  "lines of the selected blocks.";

/** The selected span ({kind, a, b}, with a `note` when it is wider than the selection), or null. */
export function selectedSpan() {
  const s = window.getSelection();
  if (!s || s.rangeCount === 0 || s.isCollapsed || !src()) return null;
  const r = s.getRangeAt(0);
  const rendered = document.getElementById("rendered");
  if (rendered && !rendered.hidden && rendered.contains(r.commonAncestorContainer)) {
    const tight = tightRange(r);
    const a = blockOf(tight.startContainer), b = blockOf(tight.endContainer);
    if (!a || !b) return null;
    const exact = exactRenderedSpan(tight);
    if (exact) return exact;
    return { kind: "lines", a: blockLines(a)[0], b: Math.max(blockLines(a)[0], blockLines(b)[1]), note: INEXACT };
  }
  if (!src().contains(r.startContainer) && !src().contains(r.endContainer)) return null;
  const total = codePoints(src().textContent);
  const a = src().contains(r.startContainer) ? sourceOffset(r.startContainer, r.startOffset) : 0;
  const b = src().contains(r.endContainer) ? sourceOffset(r.endContainer, r.endOffset) : total;
  return b > a ? { kind: "chars", a, b } : null;
}
