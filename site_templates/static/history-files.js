// The files the build rewrites for the drift banner (indexer/site/banner_data.py): site.json (the
// built commit), commits.json (the published first-parent commits, oldest first) and the history
// shards, history/<first two hex digits of historyName(path)>.json.
import { historyName } from "./paths.js";

const read = (url) => fetch(url, { cache: "no-cache" });

/** The built commit ({ head }); throws when it cannot be read. */
export async function siteInfo(root) {
  return (await read(`${root}site.json`)).json();
}

/** The published commits, oldest first ([] when the file is missing). */
export async function publishedCommits(root) {
  const response = await read(`${root}commits.json`);
  return response.ok ? (await response.json()).commits : [];
}

/** `path`'s record (its versions and steps), or null when the site has none. */
export async function historyRecord(root, path) {
  const response = await read(`${root}history/${historyName(path).slice(0, 2)}.json`);
  const shard = response.ok ? await response.json() : null;
  const record = shard && shard.paths ? shard.paths[path] : null;
  return record && record.path === path ? record : null;
}

/**
 * Whether the site has a history page for the path of `record`: the path held more than one
 * interval (indexer.site.history_pages.has_history_page; a history record's ranges are its intervals).
 */
export function hasHistoryPage(record) {
  return Object.values(record.versions).reduce((n, v) => n + v.ranges.length, 0) > 1;
}

/** Why `commit` did not hold the version whose commit `ranges` these are, or null when it did. */
export function commitMismatch(commits, ranges, commit, path) {
  const at = commits.indexOf(commit);
  if (at < 0) {
    return `Commit ${commit.slice(0, 12)} is not in this site's published history, so this permalink cannot be checked here.`;
  }
  const holds = ranges.some(([first, last]) => {
    const from = commits.indexOf(first);
    const to = last === null ? commits.length - 1 : commits.indexOf(last);
    return from >= 0 && to >= 0 && from <= at && at <= to;
  });
  return holds ? null
    : `At commit ${commit.slice(0, 12)}, ${path} held other text than this page shows: the permalink's commit, path and page do not agree.`;
}
