// Unit tests of static/rendered-align.js (the rendered view's selections in a real page:
// test_site_reader.py).
import assert from "node:assert/strict";
import { test } from "node:test";
import { alignRendered, exactSourceSpan, markupOnly, widenToMarkup } from "../../site_templates/static/rendered-align.js";

const points = (s) => Array.from(s);

test("each rendered character finds its source character, markup skipped", () => {
  assert.deepEqual(alignRendered(points("a b"), points("*a* b")), [1, 3, 4]);
  assert.deepEqual(alignRendered(points("x"), points("y")), [-1]);
});

test("markup only: delimiters, a link's destination, an entity", () => {
  const src = points("a**](https://x.example) &amp; b");
  assert.ok(markupOnly(src, 1, 3));
  assert.ok(markupOnly(src, 3, 23));
  assert.ok(markupOnly(src, 23, 30));
  assert.ok(!markupOnly(points("a word b"), 1, 7));
  const role = points("more :term:`license identifier`\\(s)");
  assert.ok(markupOnly(role, 5, 12)); // ":term:`"
  assert.ok(markupOnly(role, 30, 32)); // "`\\"
  assert.ok(!markupOnly(points("a :term: b"), 1, 9)); // a role's name is markup only before its text
});

test("MkDocs' icons, keys and marks are markup only", () => {
  const src = points("with :smile: and ++ctrl+alt++ ==x== ^^y^^ now");
  const rendered = points("with smile and ctrl+alt x y now");
  const map = alignRendered(rendered, src);
  for (let i = 1; i < map.length; i++) {
    assert.ok(map[i] > map[i - 1], `${i}`);
    assert.ok(markupOnly(src, map[i - 1] + 1, map[i]), src.slice(map[i - 1] + 1, map[i]).join(""));
  }
  assert.ok(!markupOnly(points("a :smile: b"), 1, 10)); // a name is no markup
});

test("a reST role's text taken in with its backtick takes its name too", () => {
  const src = points("see :term:`Core Metadata` now");
  assert.deepEqual(widenToMarkup(src, 0, 11, 25), { kind: "chars", a: 4, b: 25 }); // "Core Metadata`"
  assert.deepEqual(widenToMarkup(src, 0, 11, 15), { kind: "chars", a: 11, b: 15 }); // "Core" alone
});

test("a selection is widened to keep the markup it opens or closes whole", () => {
  const src = points("say **bold** now");
  assert.deepEqual(widenToMarkup(src, 10, 10 + 6, 10 + 10), { kind: "chars", a: 10 + 6, b: 10 + 10 }); // no mark in it
  assert.deepEqual(widenToMarkup(src, 10, 10 + 6, 10 + 12), { kind: "chars", a: 10 + 4, b: 10 + 12 }); // "bold**"
  const link = points("see [the docs](d.md) here");
  assert.deepEqual(widenToMarkup(link, 0, 5, 13), { kind: "chars", a: 5, b: 13 }); // the link text alone
  assert.deepEqual(widenToMarkup(link, 0, 4, 13), { kind: "chars", a: 4, b: 20 }); // "[the docs": the link whole
});

test("exactSourceSpan maps rendered code points to the source, or says it cannot", () => {
  const src = points("An *emphasised* 🎉 word\n");
  const rendered = points("An emphasised 🎉 word");
  assert.deepEqual(exactSourceSpan(rendered, src, 100, 3, 13), { kind: "chars", a: 104, b: 114 });
  assert.deepEqual(exactSourceSpan(rendered, src, 100, 0, 13), { kind: "chars", a: 100, b: 115 }); // "*" taken in
  assert.deepEqual(exactSourceSpan(rendered, src, 0, 14, 20), { kind: "chars", a: 16, b: 22 });
  assert.equal(exactSourceSpan(rendered, src, 0, 2, 3), null); // a space alone
  assert.equal(exactSourceSpan(points("Another text"), src, 0, 0, 7), null);
});
