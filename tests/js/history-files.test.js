// Unit tests of static/history-files.js, with the site's files served by a stub fetch.
import assert from "node:assert/strict";
import { test } from "node:test";
import { commitMismatch, commitPlace, hasHistoryPage, historyRecord, siteInfo } from "../../site_templates/static/history-files.js";
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
});

test("commitPlace: a commit's place from the one file of its SHA's first two digits", async () => {
  const [a, b, c] = ["ab" + "1".repeat(38), "ab" + "2".repeat(38), "cd" + "3".repeat(38)];
  serve({ "site/commits/ab.json": { commits: { [a]: 0, [b]: 2 } }, "site/commits/cd.json": { commits: { [c]: 1 } } });
  assert.equal(await commitPlace("site/", a), 0);
  assert.equal(await commitPlace("site/", b), 2);
  assert.equal(await commitPlace("site/", c), 1);
  assert.equal(await commitPlace("site/", "ab" + "9".repeat(38)), -1); // its file holds other commits
  assert.equal(await commitPlace("site/", "ef" + "9".repeat(38)), -1); // no file for it
  assert.equal(await commitPlace("site/", "ab1111"), -1); // not a full SHA: never matched by a prefix
  assert.equal(await commitPlace("site/", "constructor"), -1);
  assert.equal(await commitPlace("site/", null), -1);
});

test("commitMismatch: a commit outside the history, or one that held another version", () => {
  const [c2, c4] = ["2".repeat(40), "4".repeat(40)];
  assert.equal(commitMismatch(1, [["c2", "c3", 1, 2]], c2, "a.md"), null);
  assert.equal(commitMismatch(3, [["c3", null, 2, null]], c4, "a.md"), null);
  assert.match(commitMismatch(3, [["c2", "c3", 1, 2]], c4, "a.md"), /held other text/);
  assert.match(commitMismatch(0, [["c2", "c3", 1, 2]], c4, "a.md"), /held other text/);
  assert.match(commitMismatch(-1, [["c2", "c3", 1, 2]], "f".repeat(40), "a.md"), /not in this site's published history/);
  // A record of an earlier format (no places) holds nothing: fail closed.
  assert.match(commitMismatch(1, [["c2", "c3"]], c2, "a.md"), /held other text/);
});

test("hasHistoryPage: a path with more than one interval, of one version or of several", () => {
  assert.equal(hasHistoryPage({ versions: { b1: { ranges: [["c1", null]] } } }), false);
  assert.equal(hasHistoryPage({ versions: { b1: { ranges: [["c1", "c2"], ["c4", null]] } } }), true);
  assert.equal(hasHistoryPage({ versions: { b1: { ranges: [["c1", "c2"]] }, b2: { ranges: [["c3", null]] } } }), true);
});

test("historyRecord writes out the hunks' lines the record holds once, and refuses a record naming one it lacks", async () => {
  const shard = `site/history/${historyName("a.md").slice(0, 2)}.json`;
  const hunk = [1, 1, 1, 1, [0, 1], [[0, 0, 3]]];
  const record = { path: "a.md", lines: ["-old", "+new"], versions: { b1: { ranges: [], target: { hunks: [hunk] } }, b2: { ranges: [], target: null } } };
  serve({ [shard]: { paths: { "a.md": record } } });
  const read = await historyRecord("site/", "a.md");
  assert.deepEqual(read.versions.b1.target.hunks, [[1, 1, 1, 1, ["-old", "+new"], [[0, 0, 3]]]]);
  const broken = { ...record, versions: { b1: { ranges: [], target: { hunks: [[1, 1, 1, 1, [0, 2]]] } } } };
  serve({ [shard]: { paths: { "a.md": broken } } });
  assert.equal(await historyRecord("site/", "a.md"), null);
  serve({ [shard]: { paths: { "a.md": { path: "a.md", versions: { b1: { target: { hunks: [[1, 1, 1, 1, ["-x"]]] } } } } } } });
  assert.deepEqual((await historyRecord("site/", "a.md")).versions.b1.target.hunks[0][4], ["-x"]); // an earlier shape, as it was
});

test("historyRecord reads the file named by as many digits as site.json gives", async () => {
  const name = historyName("a.md");
  const record = { path: "a.md", versions: {} };
  serve({ [`site/history/${name.slice(0, 3)}.json`]: { paths: { "a.md": record } } });
  assert.deepEqual(await historyRecord("site/", "a.md", 3), record);
  assert.equal(await historyRecord("site/", "a.md"), null); // two digits: another file
  assert.equal(await historyRecord("site/", "a.md", 9), null); // out of range: two digits
});
