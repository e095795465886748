// Unit tests of static/selectors.js.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  charSpanOf, lineRangeOf, linesSelector, parseSelector, shiftedSelector, spanSelector,
} from "../../site_templates/static/selectors.js";

// "ab\n🎉c\nd\n": lines start at 0, 3 and 6; the text is 8 code points.
const STARTS = [0, 3, 6, 8];

test("parseSelector reads the four selector forms and nothing else", () => {
  assert.deepEqual(parseSelector("#L12"), { kind: "lines", a: 12, b: 12, text: "L12" });
  assert.deepEqual(parseSelector("#L3-L7"), { kind: "lines", a: 3, b: 7, text: "L3-L7" });
  assert.deepEqual(parseSelector("#c120-340"), { kind: "chars", a: 120, b: 340, text: "c120-340" });
  assert.deepEqual(parseSelector("#L1C2-L3C4"), { kind: "linecol", l1: 1, c1: 2, l2: 3, c2: 4, text: "L1C2-L3C4" });
  for (const other of ["", "#", "#h-intro", "#L", "#c1", "#L1-2"]) assert.equal(parseSelector(other), null, other);
});

test("a span's code points and lines", () => {
  assert.deepEqual(charSpanOf({ kind: "chars", a: 1, b: 4 }, STARTS), [1, 4]);
  assert.deepEqual(charSpanOf({ kind: "linecol", l1: 2, c1: 2, l2: 3, c2: 1 }, STARTS), [4, 6]);
  assert.equal(charSpanOf({ kind: "lines", a: 1, b: 2 }, STARTS), null);
  assert.deepEqual(lineRangeOf({ kind: "chars", a: 1, b: 4 }, STARTS), [1, 2]);
  assert.deepEqual(lineRangeOf({ kind: "chars", a: 3, b: 6 }, STARTS), [2, 2]); // the end is exclusive
  assert.deepEqual(lineRangeOf({ kind: "chars", a: 7, b: 99 }, STARTS), [3, 3]);
  assert.deepEqual(lineRangeOf({ kind: "lines", a: 2, b: 5 }, STARTS), [2, 5]);
});

test("shifted selectors keep their unit", () => {
  assert.equal(linesSelector(4, 4), "L4");
  assert.equal(shiftedSelector({ kind: "lines", a: 2, b: 3 }, 2, 0), "L4-L5");
  assert.equal(shiftedSelector({ kind: "linecol", l1: 1, c1: 2, l2: 1, c2: 5 }, 1, 9), "L2C2-L2C5");
  assert.equal(shiftedSelector({ kind: "chars", a: 1, b: 4 }, 1, 7), "c8-11");
  assert.equal(shiftedSelector({ kind: "chars", a: 1, b: 4 }, 1, null), null);
});

test("spanSelector writes a span of a text in the cited unit", () => {
  const text = "ab\n🎉c\nd\n";
  assert.equal(spanSelector(text, 3, 5, "chars"), "c3-5");
  assert.equal(spanSelector(text, 3, 5, "lines"), "L2");
  assert.equal(spanSelector(text, 1, 7, "lines"), "L1-L3");
  assert.equal(spanSelector(text, 4, 7, "linecol"), "L2C2-L3C2");
});
