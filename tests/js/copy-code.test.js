// Unit tests of static/copy-code.js.
import assert from "node:assert/strict";
import { test } from "node:test";
import { codeToCopy } from "../../site_templates/static/copy-code.js";

test("the copied code drops the one line end after the block and keeps the rest", () => {
  assert.equal(codeToCopy("print(1)\n"), "print(1)");
  assert.equal(codeToCopy("a\n\n"), "a\n");
  assert.equal(codeToCopy("  indented\n  two"), "  indented\n  two");
  assert.equal(codeToCopy(""), "");
});
