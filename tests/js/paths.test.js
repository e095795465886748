// Unit tests of static/paths.js (its parity with Python: tests/test_site_scripts.py).
import assert from "node:assert/strict";
import { test } from "node:test";
import { encodePath, historyName, quotePath, sitePage } from "../../site_templates/static/paths.js";

test("quotePath percent-encodes as urllib.parse.quote(path, safe='/')", () => {
  assert.equal(quotePath("corpus/a b (1).md"), "corpus/a%20b%20%281%29.md");
  assert.equal(quotePath("中/🎉!'*.md"), "%E4%B8%AD/%F0%9F%8E%89%21%27%2A.md");
});

test("encodePath escapes what would break the text form, and keeps the rest", () => {
  assert.equal(encodePath("corpus/a b@c#d.md"), "corpus/a%20b%40c%23d.md");
  assert.equal(encodePath("中文/é.md"), "中文/é.md");
  assert.equal(encodePath("tab\there"), "tab%09here");
  assert.equal(encodePath("nbsp\u00a0soft\u00adzw\u200b"), "nbsp%C2%A0soft%C2%ADzw%E2%80%8B");
});

test("historyName is FNV-1a 64 of the UTF-8 bytes, in 16 hex digits", () => {
  assert.equal(historyName(""), "cbf29ce484222325");
  assert.equal(historyName("a"), "af63dc4c8601ec8c");
  assert.match(historyName("中文/🎉 b.md"), /^[0-9a-f]{16}$/);
});

test("sitePage names a page by its path, and by the path's hash past the file system's limits", () => {
  assert.equal(sitePage("doc", "corpus/a b.md"), "doc/corpus/a%20b.md.html");
  const long = "corpus/" + "a".repeat(251) + ".md";
  assert.equal(sitePage("doc", long), `doc/~long/${historyName(long)}.html`);
  const deep = "d/".repeat(600) + "x.md"; // a path past 1024 bytes
  assert.equal(sitePage("changes", deep), `changes/~long/${historyName(deep)}.html`);
});
