// Unit tests of static/citation-text.js (against `pincite cite` in a real page: test_site_browser.py).
import assert from "node:assert/strict";
import { test } from "node:test";
import { citationStrings, linesLabel } from "../../site_templates/static/citation-text.js";

const text = "# T\n\nfirst 🎉 line\nsecond\n";
const page = {
  points: Array.from(text), starts: [0, 4, 5, 18, 25, 25], commit: "a".repeat(40), path: "docs/a b.md",
  blob: "b".repeat(40), identity: "", base: "https://site.example/",
};

test("a character span's text form, permalink, quote and Markdown", () => {
  const c = citationStrings(page, { kind: "chars", a: 5, b: 12 });
  assert.equal(c.quote, "first 🎉");
  assert.equal(c.text, `docs/a%20b.md@${page.commit}#c5-12`);
  assert.equal(c.permalink, `https://site.example/v/${page.blob}.html?commit=${page.commit}&path=docs/a%20b.md#c5-12`);
  assert.equal(c.markdown, `> first 🎉\n\n— [docs/a b.md, line 3](${c.permalink})\n`);
});

test("a line span quotes whole lines without the last newline; an identity is named in both forms", () => {
  const c = citationStrings({ ...page, identity: "3f2a9c1e" }, { kind: "lines", a: 3, b: 4 });
  assert.equal(c.quote, "first 🎉 line\nsecond");
  assert.equal(c.text, `docs/a%20b.md@${page.commit}#L3-L4;x=3f2a9c1e`);
  assert.ok(c.permalink.endsWith("&x=3f2a9c1e#L3-L4"));
  assert.ok(c.markdown.startsWith("> first 🎉 line\n> second\n\n— [docs/a b.md, lines 3-4]("));
});

test("a one-line range is 'line N', a longer one 'lines A-B' (the banner sets it with an en dash)", () => {
  assert.equal(linesLabel(10, 10), "line 10");
  assert.equal(linesLabel(10, 10, "–"), "line 10");
  assert.equal(linesLabel(10, 12), "lines 10-12");
  assert.equal(linesLabel(10, 12, "–"), "lines 10–12");
});
