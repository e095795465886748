// Unit tests of static/terms.js's word pattern (the marks in a page: test_site_browser.py).
import assert from "node:assert/strict";
import { test } from "node:test";
import { termPattern } from "../../site_templates/static/terms.js";

test("the words of two letters or more, matched literally", () => {
  const re = termPattern("a retention (x+y)", "giu");
  assert.deepEqual("Retention of (x+y) and a".match(re), ["Retention", "(x+y)"]);
  assert.equal(termPattern(" a ", "iu"), null);
  assert.equal(termPattern(null, "iu"), null);
});
