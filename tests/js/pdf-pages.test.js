// Unit tests of static/pdf-pages.js.
import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeBoxes, dragSpan, rectsFor, runAt, spanOf } from "../../site_templates/static/pdf-pages.js";

// indexer.extract.pdf_pages.encode_boxes of the runs below, page starting at offset 100.
const RUNS = [[100, 105, 10, 20, 60, 32], [106, 110, 66, 20, 90, 32], [111, 115, 10, 40, 50, 52]];
const LINES = [[20, 32, 0, 5, 10, 50, 1, 4, 6, 24], [40, 52, 1, 4, 10, 40]];

test("decodeBoxes undoes the encoding the build writes", () => {
  assert.deepEqual(decodeBoxes(LINES, 100), RUNS);
  assert.deepEqual(decodeBoxes([], 7), []);
});

test("rectsFor lights every word a code point of the span falls in, and no other", () => {
  assert.deepEqual(rectsFor(RUNS, 100, 105), [[10, 20, 50, 12]]);
  assert.deepEqual(rectsFor(RUNS, 104, 107), [[10, 20, 50, 12], [66, 20, 24, 12]]);
  assert.deepEqual(rectsFor(RUNS, 105, 106), []); // the space between two words
  assert.deepEqual(rectsFor(RUNS, 0, 1000).length, 3);
});

test("spanOf gives the code points of line and character selectors", () => {
  const starts = [0, 6, 12, 20];
  assert.deepEqual(spanOf({ kind: "lines", a: 2, b: 2 }, starts), [6, 12]);
  assert.deepEqual(spanOf({ kind: "lines", a: 2, b: 9 }, starts), [6, 20]);
  assert.deepEqual(spanOf({ kind: "chars", a: 3, b: 8 }, starts), [3, 8]);
});

test("a drag over the page spans the words from the one under its start to the one under its end", () => {
  assert.deepEqual(runAt(RUNS, 30, 25), RUNS[0]);
  assert.deepEqual(runAt(RUNS, 63, 25), RUNS[0]); // between two words: the nearer
  assert.deepEqual(runAt(RUNS, 200, 45), RUNS[2]); // past the end of a line: its last word
  assert.equal(runAt(RUNS, 30, 100), null); // below every line
  assert.deepEqual(dragSpan(RUNS, [70, 25], [20, 45]), [106, 115]);
  assert.deepEqual(dragSpan(RUNS, [20, 45], [70, 25]), [106, 115]); // either direction
  assert.equal(dragSpan(RUNS, [20, 45], [20, 400]), null);
});
