// Unit tests of static/history-files.js, with the site's files served by a stub fetch.
import assert from "node:assert/strict";
import { test } from "node:test";
import { commitMismatch, hasHistoryPage, historyRecord, publishedCommits, siteInfo } from "../../site_templates/static/history-files.js";
import { historyName } from "../../site_templates/static/paths.js";

function serve(files) {
  globalThis.fetch = async (url) => {
    const body = files[url];
    return { ok: body !== undefined, json: async () => body };
  };
}

test("a path's record comes from its shard, and only for that path", async () => {
  const shard = `site/history/${historyName("a.md").slice(0, 2)}.json`;
  serve({ [shard]: { paths: { "a.md": { path: "a.md", versions: {} } } }, "site/site.json": { head: "h" } });
  assert.deepEqual(await historyRecord("site/", "a.md"), { path: "a.md", versions: {} });
  assert.equal(await historyRecord("site/", "b.md"), null);
  assert.deepEqual(await siteInfo("site/"), { head: "h" });
  assert.deepEqual(await publishedCommits("site/"), []);
  serve({ "site/commits.json": { commits: ["c1"] } });
  assert.deepEqual(await publishedCommits("site/"), ["c1"]);
});

test("commitMismatch: a commit outside the history, or one that held another version", () => {
  const commits = ["c1", "c2", "c3", "c4"];
  assert.equal(commitMismatch(commits, [["c2", "c3"]], "c2", "a.md"), null);
  assert.equal(commitMismatch(commits, [["c3", null]], "c4", "a.md"), null);
  assert.match(commitMismatch(commits, [["c2", "c3"]], "c4", "a.md"), /held other text/);
  assert.match(commitMismatch(commits, [["c2", "c3"]], "f".repeat(40), "a.md"), /not in this site's published history/);
});

test("hasHistoryPage: a path with more than one interval, of one version or of several", () => {
  assert.equal(hasHistoryPage({ versions: { b1: { ranges: [["c1", null]] } } }), false);
  assert.equal(hasHistoryPage({ versions: { b1: { ranges: [["c1", "c2"], ["c4", null]] } } }), true);
  assert.equal(hasHistoryPage({ versions: { b1: { ranges: [["c1", "c2"]] }, b2: { ranges: [["c3", null]] } } }), true);
});
