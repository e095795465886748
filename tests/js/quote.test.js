// Unit tests of static/quote.js (its parity with Python on generated text: test_site_browser.py).
import assert from "node:assert/strict";
import { test } from "node:test";
import { normalizeForMatch, normalizePoints, normalizeQuote, quotePlaces, searchWords } from "../../site_templates/static/quote.js";

test("quotes, dashes and runs of space fold; each point keeps the offset it came from", () => {
  const [points, offsets] = normalizePoints("a\u2019 \t\u2014b");
  assert.equal(points.join(""), "a' -b");
  assert.deepEqual(offsets, [0, 1, 2, 4, 5, 6]);
  assert.equal(normalizeQuote("  \u201cDon\u2019t\u201d\u00a0 stop "), "\"Don't\" stop");
});

test("NFC composes, and the composed point keeps the offset of its first part", () => {
  const [points, offsets] = normalizePoints("e\u0301x");
  assert.deepEqual([points.join(""), offsets], ["\u00e9x", [0, 2, 3]]);
  const [units] = normalizeForMatch("🎉a");
  assert.equal(units, "🎉a");
});

test("quotePlaces finds every place, in code points of the original text", () => {
  const text = "one 🎉 two\none \u{1F389}  two";
  assert.deepEqual(quotePlaces(normalizeQuote("one 🎉 two"), text, 10), [[0, 9], [10, 20]]);
  assert.deepEqual(quotePlaces("one", text, 1), [[0, 3]]);
  assert.deepEqual(quotePlaces("", text, 10), []);
});

test("searchWords: the longest whole words, the span's cut first and last dropped", () => {
  assert.deepEqual(searchWords("ng retention of records kept fo", 3), ["retention", "records", "kept"]);
  assert.deepEqual(searchWords("a b"), []);
});

test("ligatures fold to letters and a hyphen between letters is left out with the space after it", () => {
  const [points, offsets] = normalizePoints("o\ufb03ce asyn-\nchronously Single-process 2-3 a -b");
  assert.equal(points.join(""), "office asynchronously Singleprocess 2-3 a -b");
  assert.deepEqual(offsets.slice(0, 6), [0, 1, 1, 1, 2, 3]);
  assert.deepEqual(quotePlaces(normalizeQuote("asyn- chronously"), "x asyn-\n  chronously y", 10), [[2, 20]]);
  assert.deepEqual(quotePlaces(normalizeQuote("the \ufb01le"), "the file", 10), [[0, 8]]);
});

test("a quote cut at a word's hyphen loses that hyphen", () => {
  assert.equal(normalizeQuote(" asyn- "), "asyn");
  assert.equal(normalizeQuote("-known"), "known");
  assert.equal(normalizeQuote("- \n chronously"), "chronously");
  assert.equal(normalizeQuote("-5 and 4-"), "-5 and 4-");
});
