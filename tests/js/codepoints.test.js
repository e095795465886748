// Unit tests of static/codepoints.js.
import assert from "node:assert/strict";
import { test } from "node:test";
import { codePoints, unitOffset, unitsAt } from "../../site_templates/static/codepoints.js";

test("a character outside the BMP is one code point and two UTF-16 units", () => {
  assert.equal(codePoints("a🎉b"), 3);
  assert.equal(unitsAt("a🎉b", 1), 2);
  assert.equal(unitsAt("a🎉b", 0), 1);
});

test("a lone surrogate counts as one code point, as Python's len does", () => {
  assert.equal(codePoints("\ud83c"), 1);
  assert.equal(codePoints("\ud83cx"), 2);
  assert.equal(codePoints("\udf89\ud83c"), 2);
  assert.equal(codePoints(""), 0);
});

test("a code point offset becomes the UTF-16 offset of that code point", () => {
  assert.equal(unitOffset("a🎉b", 0), 0);
  assert.equal(unitOffset("a🎉b", 2), 3);
  assert.equal(unitOffset("a🎉b", 3), 4);
  assert.equal(unitOffset("a🎉b", 9), 4);
});
