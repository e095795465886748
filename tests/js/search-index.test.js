// Unit tests of static/search-index.js, with a stand-in for Pagefind's module on disk and the
// site's search-bundles.json served by a stub fetch (the real bundles: tests/test_search_bundles.py).
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, test } from "node:test";
import { chooseLanguage, load } from "../../site_templates/static/search-index.js";

const FAKE_PAGEFIND = `
export const calls = [];
export async function options(o) { calls.push(["options", o]); }
export async function init() { calls.push(["init"]); }
export async function mergeIndex(url, o) { calls.push(["merge", url]); }
export async function search(term) { return { results: [{ id: "keep" }, { id: "old" }], term }; }
`;

const made = [];
after(() => made.forEach((root) => rmSync(root, { recursive: true, force: true })));

function site(listing) {
  const root = mkdtempSync(join(tmpdir(), "pincite-site-"));
  made.push(root);
  mkdirSync(join(root, "pagefind", "base-1"), { recursive: true });
  writeFileSync(join(root, "pagefind", "base-1", "pagefind.js"), FAKE_PAGEFIND);
  const url = pathToFileURL(root + "/");
  globalThis.fetch = async (asked) => ({
    ok: asked.href === new URL("search-bundles.json", url).href,
    status: 404,
    json: async () => listing,
  });
  return url;
}

test("the bundles are merged into the first, and superseded pages are dropped from every answer", async () => {
  const root = site({ bundles: ["base-1", "delta-2"], superseded: ["old"] });
  const index = await load(root);
  const found = await index.search("words");
  assert.deepEqual(found.results.map((r) => r.id), ["keep"]);
  assert.equal(found.term, "words");
  const pagefind = await import(new URL("pagefind/base-1/pagefind.js", root).href);
  assert.deepEqual(pagefind.calls.map((c) => c[0]), ["options", "init", "merge"]);
  assert.equal(pagefind.calls[2][1], new URL("pagefind/delta-2/", root).href);
  assert.equal(await load(root), index); // opened once per page
});

test("a site without bundles fails, and is asked again next time", async () => {
  const root = site({ bundles: [] });
  await assert.rejects(load(root), /no search bundles/);
  globalThis.fetch = async () => ({ ok: false, status: 404 });
  await assert.rejects(load(root), /HTTP 404/);
});

test("chooseLanguage: the one asked, else the reader's, else the site's largest", () => {
  const languages = { en: 30, de: 5, "zh-cn": 2 };
  assert.equal(chooseLanguage(languages, "de", ["en-US"]), "de");
  assert.equal(chooseLanguage(languages, "zh_CN", []), "zh-cn");
  assert.equal(chooseLanguage(languages, "", ["fr-FR", "de-AT"]), "de");
  assert.equal(chooseLanguage(languages, "xx", ["zh-TW"]), "zh-cn");
  assert.equal(chooseLanguage(languages, "", ["fr"]), "en");
  assert.equal(chooseLanguage({}, "de", ["de"]), "");
});

test("the index searched is the language chosen, and the listing's languages are offered", async () => {
  const root = site({ bundles: ["base-1"], superseded: [], languages: { en: 3, de: 1 } });
  const index = await load(root, { language: "de", excerptLength: 24 });
  assert.equal(index.language, "de");
  assert.deepEqual(index.languages, { en: 3, de: 1 });
  const pagefind = await import(new URL("pagefind/base-1/pagefind.js", root).href);
  const options = pagefind.calls.filter((c) => c[0] === "options").at(-1)[1];
  assert.equal(options.language, undefined);
  assert.equal(options.excerptLength, 24);
});

test("only the bundles that hold the language searched are merged", async () => {
  const root = site({
    bundles: ["base-1", "base-2", "delta-3"],
    superseded: [],
    languages: { en: 3, de: 2 },
    bundle_languages: { "base-1": ["de", "en"], "base-2": ["en"], "delta-3": ["de"] },
  });
  await load(root, { language: "de" });
  const pagefind = await import(new URL("pagefind/base-1/pagefind.js", root).href);
  assert.deepEqual(pagefind.calls.filter((c) => c[0] === "merge").map((c) => c[1]), [new URL("pagefind/delta-3/", root).href]);
});
