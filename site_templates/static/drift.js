// The drift verdict in the browser: the cited lines carried through git's zero-context hunks,
// the rule of indexer.citations.lineage.relocate_lines, so that a version page and `pincite
// verify` agree. Hunks are the history files' [old_start, old_count, new_start, new_count, lines]
// (indexer/site/banner_data.py).
import { codePoints } from "./codepoints.js";

/** Lines first..last through `hunks`: ["verified" | "drifted", new first, new last]. */
export function relocateLines(first, last, hunks) {
  let shift = 0, delta = 0, touched = false;
  const sorted = hunks.slice().sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  for (const [os, oc, , nc] of sorted) {
    let before, touches;
    if (oc === 0) {
      before = os < first;
      touches = first <= os && os < last;
    } else {
      const oldLast = os + oc - 1;
      before = oldLast < first;
      touches = os <= last && oldLast >= first;
    }
    if (before) shift += nc - oc;
    else if (touches) {
      touched = true;
      delta += nc - oc;
    }
  }
  if (!touched) return ["verified", first + shift, last + shift];
  const nf = first + shift;
  return ["drifted", nf, Math.max(nf - 1, last + shift + delta)];
}

// Code points that hunks wholly before line `first` add (or remove) ahead of the span: where
// indexer.citations.drift._verify_resolved moves a verified character span (the start of its
// first line in the new text minus the start in the old), counted from the hunks' lines. Null
// when a hunk's lines were cut short and cannot be counted.
export function charShiftBefore(first, hunks) {
  let shift = 0;
  for (const [os, oc, , , lines] of hunks) {
    const before = oc === 0 ? os < first : os + oc - 1 < first;
    if (!before) continue;
    for (const line of lines) {
      if (line.startsWith("\\")) {
        if (!line.startsWith("\\ No newline")) return null; // truncated hunk: cannot count
        continue;
      }
      const n = codePoints(line) - 1 + 1; // the line minus its +/- sign, plus its "\n"
      if (line[0] === "+") shift += n;
      else if (line[0] === "-") shift -= n;
    }
  }
  return shift;
}

/** The banner's verdict for a version's history `entry` and the cited `lines` of `sel`. */
export function decide(entry, sel, lines) {
  const target = entry.target;
  if (!target || target.status === "deleted") return { status: "deleted" };
  if (target.status === "unavailable") return { status: "unavailable", reason: target.reason };
  const [state, nf, nl] = relocateLines(lines[0], lines[1], target.hunks);
  if (state === "drifted") {
    const touching = target.hunks.filter((h) => relocateLines(lines[0], lines[1], [h])[0] === "drifted");
    return { status: "changed", first: nf, last: nl, hunks: touching, path: target.path, blob: target.blob };
  }
  const moved = nf !== lines[0] || target.status === "renamed";
  return {
    status: moved ? "moved" : "unchanged", first: nf, last: nl, path: target.path, blob: target.blob,
    lineShift: nf - lines[0], charShift: charShiftBefore(lines[0], target.hunks),
  };
}

// Mirror of indexer.citations.drift._first_change over the history files' steps: carry the cited
// lines commit by commit (following renames into the new path's record, which `recordOf(path)`
// reads) and return the first step whose own diff touched them or that deleted the document, and
// the first rename on the way.
export async function changedBy(record, from, lines, recordOf) {
  let [first, last] = lines;
  let renamed = null;
  for (let hops = 0; record && hops < 50; hops++) {
    let next = null;
    for (const step of record.steps || []) {
      if (step.seq <= from) continue;
      if (step.kind === "deleted") return { step, renamed };
      if (!step.hunks) return { step: null, renamed }; // a text was not indexed: cannot say
      const [state, a, b] = relocateLines(first, last, step.hunks);
      if (state === "drifted") return { step, renamed };
      [first, last] = [a, b];
      if (step.kind === "renamed") {
        next = step;
        break;
      }
    }
    if (!next) return { step: null, renamed };
    renamed = renamed || next;
    from = next.seq;
    record = await recordOf(next.path);
  }
  return { step: null, renamed };
}
