// The files the build rewrites for the drift banner (indexer/site/banner_data.py): site.json (the
// built commit), the published first-parent commits' places (0 the oldest) in
// commits/<first two hex digits of the SHA>.json, and the history shards,
// history/<first two hex digits of historyName(path)>.json.
import { historyName } from "./paths.js";

const read = (url) => fetch(url, { cache: "no-cache" });

/** The built commit ({ head }); throws when it cannot be read. */
export async function siteInfo(root) {
  return (await read(`${root}site.json`)).json();
}

/** `commit`'s place on the published first-parent line (0 the oldest), or -1 when it is not on it. */
export async function commitPlace(root, commit) {
  if (!/^[0-9a-f]{40}$/.test(commit || "")) return -1;
  const response = await read(`${root}commits/${commit.slice(0, 2)}.json`);
  const places = response.ok ? (await response.json()).commits : null;
  const place = places && Object.hasOwn(places, commit) ? places[commit] : -1;
  return Number.isInteger(place) ? place : -1;
}

/**
 * `path`'s record (its versions and steps), or null when the site has none. Its file is named by
 * the first `digits` hex digits of historyName(path): site.json's `history_digits` (the site has
 * more files as its history grows; indexer.site.render.history_digits).
 */
export async function historyRecord(root, path, digits = 2) {
  const named = Number.isInteger(digits) && digits >= 2 && digits <= 4 ? digits : 2;
  const response = await read(`${root}history/${historyName(path).slice(0, named)}.json`);
  const shard = response.ok ? await response.json() : null;
  const record = shard && shard.paths && Object.hasOwn(shard.paths, path) ? shard.paths[path] : null;
  return record && record.path === path ? withLines(record) : null;
}

/**
 * The record with its hunks' lines written out: the file names each line by its place in the
 * record's `lines`, written once (indexer.site.banner_data._shared_lines). Null when a hunk names
 * a line the record does not hold: a record that cannot be read whole is not read at all.
 */
function withLines(record) {
  if (!Array.isArray(record.lines)) return record;
  for (const version of Object.values(record.versions || {})) {
    for (const hunk of (version.target && version.target.hunks) || []) {
      if (!Array.isArray(hunk[4]) || !hunk[4].every((i) => Number.isInteger(i) && i >= 0 && i < record.lines.length)) {
        return null;
      }
      hunk[4] = hunk[4].map((i) => record.lines[i]);
    }
  }
  return record;
}

/**
 * Whether the site has a history page for the path of `record`: the path held more than one
 * interval (indexer.site.history_pages.has_history_page; a history record's ranges are its intervals).
 */
export function hasHistoryPage(record) {
  return Object.values(record.versions).reduce((n, v) => n + v.ranges.length, 0) > 1;
}

/**
 * Why `commit`, at place `at` (commitPlace), did not hold the version whose `ranges` these are
 * ([first, last, first's place, last's place], the last null while the version is current), or
 * null when it did.
 */
export function commitMismatch(at, ranges, commit, path) {
  if (at < 0) {
    return `Commit ${commit.slice(0, 12)} is not in this site's published history, so this permalink cannot be checked here.`;
  }
  const holds = ranges.some(([, , from, to]) => Number.isInteger(from) && from <= at && (to === null || at <= to));
  return holds ? null
    : `At commit ${commit.slice(0, 12)}, ${path} held other text than this page shows: the permalink's commit, path and page do not agree.`;
}
