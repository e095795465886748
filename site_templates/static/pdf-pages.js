// A PDF version's pages as printed (indexer/site/pdf_pages.py): the cited span, or the reader's
// selection in the text view, lit as boxes over the words on the page image. The boxes come from
// pages/<blob>/N.json (indexer/extract/pdf_pages.py's encode_boxes); offsets are code points of
// the document text, as in the text view. A word is lit whole when any of its code points is in
// the span; a word with no box (its characters could not be matched to the renderer's) is not lit.
// A drag over the page image, from one word to another, selects those words in the text view.
import { unitsAt } from "./codepoints.js";
import { charSpanOf, parseSelector } from "./selectors.js";

const SVG = "http://www.w3.org/2000/svg";

/** encode_boxes undone: runs [start, end, x0, y0, x1, y1] from lines [top, bottom, gap, length, dx, width, ...]. */
export function decodeBoxes(lines, pageStart) {
  const runs = [];
  let end = pageStart;
  for (const line of lines) {
    const [top, bottom] = line;
    let right = 0;
    for (let k = 2; k + 3 < line.length; k += 4) {
      const start = end + line[k], x0 = right + line[k + 2];
      end = start + line[k + 1];
      right = x0 + line[k + 3];
      runs.push([start, end, x0, top, right, bottom]);
    }
  }
  return runs;
}

/** The rectangles [x, y, width, height] of the runs that hold a code point of [a, b). */
export function rectsFor(runs, a, b) {
  return runs.filter((r) => r[0] < b && a < r[1]).map((r) => [r[2], r[3], r[4] - r[2], r[5] - r[3]]);
}

/** The run under image point (x, y), else the nearest run on that line (between its top and bottom), or null. */
export function runAt(runs, x, y) {
  let best = null, gap = Infinity;
  for (const r of runs) {
    if (y < r[3] || y > r[5]) continue;
    const d = x < r[2] ? r[2] - x : x > r[4] ? x - r[4] : 0;
    if (d < gap) [best, gap] = [r, d];
  }
  return best;
}

/** The code points from the word at one end of a drag on the page to the word at the other. */
export function dragSpan(runs, from, to) {
  const a = runAt(runs, ...from), b = runAt(runs, ...to);
  if (!a || !b) return null;
  return [Math.min(a[0], b[0]), Math.max(a[1], b[1])];
}

/** The code points [a, b) a selector names, lines included (`starts`: source-view.js's lineStarts). */
export function spanOf(sel, starts) {
  if (sel.kind === "lines") return [starts[sel.a - 1], starts[Math.min(sel.b, starts.length - 1)]];
  return charSpanOf(sel, starts);
}

const loaded = new Map();

function boxesOf(aside, figure) {
  const page = figure.dataset.page;
  if (!loaded.has(page)) {
    loaded.set(page, fetch(`${aside.dataset.boxes}${page}.json`)
      .then((r) => (r.ok ? r.json() : null))
      .then((data) => (data ? decodeBoxes(data.lines, data.start) : []))
      .catch(() => []));
  }
  return loaded.get(page);
}

function draw(figure, rects) {
  const layer = figure.querySelector(".pdf-marks .j");
  layer.replaceChildren(...rects.map(([x, y, w, h]) => {
    const rect = document.createElementNS(SVG, "rect");
    for (const [name, value] of Object.entries({ x, y, width: w, height: h })) rect.setAttribute(name, value);
    return rect;
  }));
}

/** Light [a, b) on the pages it falls on and show those pages; `reveal` scrolls the first into view. */
export async function lightSpan(aside, a, b, reveal) {
  const figures = Array.from(aside.querySelectorAll(".pdf-page"));
  const hit = figures.filter((f) => +f.dataset.start < Math.max(b, a + 1) && a < +f.dataset.end);
  for (const figure of figures) {
    if (!hit.includes(figure)) {
      figure.classList.remove("shown");
      draw(figure, []);
    }
  }
  for (const figure of hit) {
    draw(figure, rectsFor(await boxesOf(aside, figure), a, b));
    figure.classList.add("shown");
  }
  if (reveal && hit.length) hit[0].scrollIntoView({ block: "nearest" });
  if (hit.length && window.matchMedia("(max-width: 60rem)").matches) jumpButton(aside, hit[0]);
}

// (text node, UTF-16 offset) of code point `cp` of the source view.
function pointOf(src, cp) {
  const walker = document.createTreeWalker(src, NodeFilter.SHOW_TEXT);
  let at = 0, node, last = null;
  while ((node = walker.nextNode())) {
    last = node;
    for (let i = 0; i < node.data.length; i += unitsAt(node.data, i), at++) if (at === cp) return [node, i];
  }
  return last ? [last, last.data.length] : [src, 0];
}

// A drag over a page image selects the same words in the text view: the Cite panel cites them,
// and the page lights them (the selection's own listener).
function selectOnPage(aside, figure) {
  const frame = figure.querySelector(".pdf-frame");
  const img = frame.querySelector("img");
  const toImage = (event) => {
    const box = img.getBoundingClientRect();
    const k = img.naturalWidth / box.width || 1;
    return [(event.clientX - box.left) * k, (event.clientY - box.top) * k];
  };
  let from = null;
  frame.addEventListener("pointerdown", (event) => {
    from = toImage(event);
    event.preventDefault();
  });
  frame.addEventListener("pointerup", async (event) => {
    if (!from) return;
    const span = dragSpan(await boxesOf(aside, figure), from, toImage(event));
    from = null;
    const src = document.getElementById("src");
    if (!span || !src) return;
    const range = document.createRange();
    range.setStart(...pointOf(src, span[0]));
    range.setEnd(...pointOf(src, span[1]));
    window.getSelection().removeAllRanges();
    window.getSelection().addRange(range);
  });
}

// On a narrow screen the pages stand above the text, out of view of the cited line: a button
// brings the cited page into view (a button, not a link: the address keeps the citation).
function jumpButton(aside, figure) {
  let button = document.getElementById("pdf-jump");
  if (!button) {
    button = document.createElement("button");
    button.type = "button";
    button.id = "pdf-jump";
    button.className = "pdf-jump";
    aside.append(button);
  }
  button.textContent = `Page ${figure.dataset.page} as printed ↑`;
  button.onclick = () => figure.scrollIntoView({ block: "start" });
}

/** Set up the pages of a PDF version page: `sel` (the address's span) first, then the reader's selections. */
export function setupPdfPages(sel, starts, selected) {
  const aside = document.querySelector(".pdf-pages");
  if (!aside) return;
  // The script draws every box itself: the static boxes of `#L12` (pages/<blob>/lines.css) go.
  const css = document.querySelector("link.pdf-lines");
  if (css) css.remove();
  aside.querySelectorAll(".pdf-page").forEach((figure) => selectOnPage(aside, figure));
  if (sel) lightSpan(aside, ...spanOf(sel, starts), false);
  window.addEventListener("hashchange", () => {
    const next = parseSelector(window.location.hash);
    if (next) lightSpan(aside, ...spanOf(next, starts), true);
  });
  document.addEventListener("selectionchange", () => {
    const span = selected();
    if (span) lightSpan(aside, ...spanOf(span, starts), false);
  });
}
