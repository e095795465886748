// Unit tests of static/page.js, with the page's address and <main> data stubbed.
import assert from "node:assert/strict";
import { test } from "node:test";
import { completeMain, identityMismatch, pageCommitAndPath, siteBase, versionHref } from "../../site_templates/static/page.js";

const at = (href) => {
  const url = new URL(href);
  globalThis.window = { location: { href: url.href, search: url.search, pathname: url.pathname } };
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

test("a version page's root, blob and path are read from its script's folder, its name and its heading", () => {
  const blob = "0123456789abcdef0123456789abcdef01234567";
  const heading = (text, code) => ({ textContent: text, querySelector: () => (code ? { textContent: code } : null) });
  const main = (dataset, h1) => ({ dataset, querySelector: () => h1 });
  at(`https://s.example/sub/v/${blob}.html?commit=c`);
  const titled = main({ kind: "version" }, heading("Tar a/b.md", "a/b.md"));
  completeMain(titled);
  assert.equal(titled.dataset.blob, blob);
  assert.equal(titled.dataset.knownPath, "a/b.md");
  assert.ok(titled.dataset.root.endsWith("/site_templates/"));  // the folder above this module's static/
  const untitled = main({ kind: "version" }, heading("notes.txt", null));
  at(`https://s.example/v/${blob}`);  // a host that serves the page without its .html
  completeMain(untitled);
  assert.deepEqual([untitled.dataset.blob, untitled.dataset.knownPath], [blob, "notes.txt"]);
  // An address that names no blob leaves it out: the banner then says it cannot tell.
  at("https://s.example/v/renamed.html");
  const unnamed = main({ kind: "version" }, heading("x.md", null));
  completeMain(unnamed);
  assert.equal(unnamed.dataset.blob, undefined);
  // What the page writes stays; a document page's blob and path are its own attributes.
  const written = main({ kind: "version", root: "../", blob: "b", knownPath: "k.md" }, heading("x.md", null));
  completeMain(written);
  assert.deepEqual([written.dataset.root, written.dataset.blob, written.dataset.knownPath], ["../", "b", "k.md"]);
  // A document page's blob, commit and path are those of its link to its version.
  const link = { getAttribute: () => `../../v/${blob}.html?commit=c1&path=a%20b.md#L1` };
  const doc = { dataset: { kind: "document", root: "../../" }, ownerDocument: { getElementById: () => link } };
  completeMain(doc);
  assert.deepEqual({ ...doc.dataset }, { kind: "document", root: "../../", blob, commit: "c1", path: "a b.md" });
  const bare = { dataset: { kind: "document" }, ownerDocument: { getElementById: () => null } };
  completeMain(bare);
  assert.equal(bare.dataset.blob, undefined);
});
