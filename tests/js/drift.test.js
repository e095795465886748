// Unit tests of static/drift.js (its parity with Python on generated hunks: test_site_browser.py
// for relocateLines, tests/test_site_scripts.py for charShiftBefore).
import assert from "node:assert/strict";
import { test } from "node:test";
import { changedBy, charShiftBefore, decide, relocateLines } from "../../site_templates/static/drift.js";

test("lines before a hunk stay, lines after it shift, lines it touches drift", () => {
  const inserted = [[4, 0, 5, 2, ["+x", "+y"]]]; // two lines after old line 4
  assert.deepEqual(relocateLines(1, 3, inserted), ["verified", 1, 3]);
  assert.deepEqual(relocateLines(6, 7, inserted), ["verified", 8, 9]);
  assert.deepEqual(relocateLines(4, 5, inserted), ["drifted", 4, 7]);
  assert.deepEqual(relocateLines(2, 2, [[2, 1, 1, 0, ["-gone"]]]), ["drifted", 2, 1]);
});

test("charShiftBefore counts the code points of the lines added and removed before the span", () => {
  const hunks = [[1, 1, 1, 2, ["-ab", "+🎉", "+cde"]], [9, 1, 10, 1, ["-far", "+off"]]];
  assert.equal(charShiftBefore(3, hunks), -3 + 2 + 4);
  assert.equal(charShiftBefore(1, hunks), 0);
  assert.equal(charShiftBefore(3, [[1, 0, 2, 1, ["+x", "\\ No newline at end of file"]]]), 2);
  assert.equal(charShiftBefore(3, [[1, 0, 2, 1, ["+x", "\\ 40 more lines not shown"]]]), null);
});

test("decide names the verdict the banner shows", () => {
  const entry = (target) => ({ target });
  const sel = { kind: "lines", a: 5, b: 5 };
  assert.deepEqual(decide(entry({ status: "deleted" }), sel, [5, 5]), { status: "deleted" });
  assert.equal(decide(entry(null), sel, [5, 5]).status, "deleted");
  assert.deepEqual(decide(entry({ status: "unavailable", reason: "r" }), sel, [5, 5]), { status: "unavailable", reason: "r" });
  const same = decide(entry({ status: "same", path: "a", blob: "b", hunks: [] }), sel, [5, 5]);
  assert.deepEqual(same, { status: "unchanged", first: 5, last: 5, path: "a", blob: "b", lineShift: 0, charShift: 0 });
  assert.equal(decide(entry({ status: "renamed", path: "b", blob: "c", hunks: [] }), sel, [5, 5]).status, "moved");
  const moved = decide(entry({ status: "modified", path: "a", blob: "b", hunks: [[1, 0, 2, 1, ["+new"]]] }), sel, [5, 5]);
  assert.deepEqual([moved.status, moved.first, moved.lineShift, moved.charShift], ["moved", 6, 1, 4]);
  const changed = decide(entry({ status: "modified", path: "a", blob: "b", hunks: [[5, 1, 5, 1, ["-o", "+n"]]] }), sel, [5, 5]);
  assert.deepEqual([changed.status, changed.hunks.length], ["changed", 1]);
});

test("changedBy follows a rename into the new path's record and stops at the commit that touched the lines", async () => {
  const old = { steps: [{ commit: "c1", seq: 1, kind: "modified", hunks: [[1, 0, 2, 1]] },
    { commit: "c2", seq: 2, kind: "renamed", path: "new.md", hunks: [] }] };
  const renamed = { steps: [{ commit: "c3", seq: 3, kind: "modified", hunks: [[4, 1, 4, 1]] }] };
  const asked = [];
  const recordOf = async (path) => (asked.push(path), renamed);
  const walk = await changedBy(old, 0, [3, 3], recordOf);
  assert.deepEqual(asked, ["new.md"]);
  assert.equal(walk.step.commit, "c3"); // line 3 became 4 at c1, which c3 touched
  assert.equal(walk.renamed.commit, "c2");
  const untouched = await changedBy(old, 0, [9, 9], async () => ({ steps: [] }));
  assert.deepEqual(untouched, { step: null, renamed: old.steps[1] });
  assert.deepEqual(await changedBy({ steps: [{ commit: "c1", seq: 1, kind: "modified", hunks: null }] }, 0, [1, 1], recordOf),
    { step: null, renamed: null });
});
