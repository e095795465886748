// Unit tests of static/page.js, with the page's address and <main> data stubbed.
import assert from "node:assert/strict";
import { test } from "node:test";
import { identityMismatch, pageCommitAndPath, siteBase, versionHref } from "../../site_templates/static/page.js";

const at = (href) => {
  const url = new URL(href);
  globalThis.window = { location: { href: url.href, search: url.search } };
};

test("a version page cites the commit and path of its address; a document page its own", () => {
  at("https://s.example/v/b.html?commit=c&path=a%20b.md");
  assert.deepEqual(pageCommitAndPath({ dataset: { kind: "version", knownPath: "k.md" } }), ["c", "a b.md"]);
  assert.deepEqual(pageCommitAndPath({ dataset: { kind: "document", commit: "d", path: "p.md" } }), ["d", "p.md"]);
  at("https://s.example/v/b.html");
  assert.deepEqual(pageCommitAndPath({ dataset: { kind: "version", knownPath: "k.md" } }), [null, "k.md"]);
});

test("the site's base and a version page's address", () => {
  at("https://s.example/sub/v/b.html");
  assert.equal(siteBase({ dataset: { root: "../" } }), "https://s.example/sub/");
  assert.equal(siteBase({ dataset: { siteUrl: "https://pub.example/x//" } }), "https://pub.example/x/");
  assert.equal(versionHref({ dataset: { root: "../" } }, "b", "c", "a b.md", "L2"), "../v/b.html?commit=c&path=a%20b.md#L2");
});

test("a permalink naming another extractor identity than the page's is refused", () => {
  const main = { dataset: { kind: "version", identity: "3f2a9c1e" } };
  at("https://s.example/v/b.html?x=3F2A9C1E00");
  assert.equal(identityMismatch(main), null);
  at("https://s.example/v/b.html?x=0000");
  assert.match(identityMismatch(main), /x=0000.*x=3f2a9c1e/);
  at("https://s.example/v/b.html");
  assert.equal(identityMismatch(main), null);
});
