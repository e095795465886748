// The drift banner of a version page: the verdict drift.js decided, written as text and links
// (and, for a changed or deleted span, where recovery.js found the cited text). The page's
// `data-*` attributes on #banner carry the verdict for scripts and tests.
import { codePoints, unitOffset } from "./codepoints.js";
import { linesLabel } from "./citation-text.js";
import { el } from "./dom.js";
import { pageCommitAndPath, versionHref } from "./page.js";
import { encodePath } from "./paths.js";
import { linesSelector, shiftedSelector } from "./selectors.js";

const SHORT_DIFF_ROWS = 4; // hunk headers and lines: what fits the banner's reserved height
// Characters of a diff row in the banner's diff column (22rem of .8rem monospace): a longer line
// wraps, so it counts as more rows, and a diff too tall to show whole goes under "Show the change".
const ROW_CHARS = 44;

// The banner's text (a template of before this version may have put it straight in the banner).
const bannerText = (banner) => banner.querySelector(".banner-text") || banner;

// "abc123456789 (2024-05-01): subject", the way `pincite verify` names a commit.
function commitLine(step) {
  const when = step.time ? new Date(step.time * 1000).toISOString().slice(0, 10) : "";
  return [el("code", { title: step.commit }, step.commit.slice(0, 12)),
    `${when ? ` (${when})` : ""}${step.subject ? `: ${step.subject}` : ""}`];
}

// Writes the places the exact search found into the banner; else returns the note to show.
function showRecovery(view, result) {
  const { main, banner, head, title, body } = view;
  let found = result.recovery || { places: [], gaps: ["the cited text was not searched for"] };
  const place = (p) => el("a", { href: versionHref(main, p.blob, head, p.path, p.selector) },
    `${p.path}@${head.slice(0, 12)}#${p.selector}`);
  const gaps = found.gaps.length ? ` Not every document was compared: ${found.gaps.join("; ")}.` : "";
  banner.dataset.places = String(found.places.length);
  if (result.status === "changed" && result.path) {
    // The cited document still exists: only places inside it are where the citation went
    // (as `pincite check` decides); the same words elsewhere are listed, never suggested.
    const own = found.places.filter((p) => p.path === result.path);
    if (!own.length && found.places.length) {
      banner.dataset.recovery = "other_document";
      title.append(`The cited text changed; its words stand only in other documents, and ${result.path} still exists.`);
      body.append("Not a move; a person decides whether one of these is meant: ");
      found.places.forEach((p, i) => body.append(i ? ", " : "", place(p)));
      body.append("." + gaps);
      return null;
    }
    found = { places: own, gaps: found.gaps };
  }
  // A place is a move only when the span re-pinned there keeps its lines and holds exactly the
  // cited text (recovery.js sameShape, as `pincite verify` decides): "# Title" inside "## Title" is not.
  const moves = found.places.filter((p) => p.moved);
  if (found.places.length && !moves.length) {
    banner.dataset.recovery = "changed";
    title.append("The cited text changed; its words stand only inside text that says more.");
    body.append("Not a move; a person decides whether one of these is meant: ");
    found.places.forEach((p, i) => body.append(i ? ", " : "", place(p)));
    body.append("." + gaps);
    return null;
  }
  if (moves.length === 1 && found.gaps.length) {
    // One place, but not every document was compared: where it stands, never "moved".
    banner.dataset.recovery = "unconfirmed";
    title.append("The cited text stands at ", place(moves[0]), "; it may stand elsewhere too.");
    body.append("Check before re-pinning (an exact match, not a verified move)." + gaps);
    return null;
  }
  if (moves.length === 1) {
    const p = { ...moves[0], selector: moves[0].moved };
    const text = `${encodePath(p.path)}@${head}#${p.selector}`;
    banner.dataset.recovery = "moved";
    banner.dataset.suggestion = text;
    title.append("The cited text moved: now at ", place(p), ".");
    body.append("Suggested citation (an exact match, whitespace, quotes, dashes, ligatures and hyphens in words " +
      "folded; nothing is re-pinned until you change it): ", el("code", {}, text), "." + gaps);
    return null;
  }
  if (found.places.length > 1) {
    banner.dataset.recovery = "ambiguous";
    title.append(`The cited text now stands at ${found.places.length} places; a person decides which is meant.`);
    found.places.forEach((p, i) => body.append(i ? ", " : "", place(p)));
    body.append("." + gaps);
    return null;
  }
  banner.dataset.recovery = "none";
  return el("span", { class: "banner-recovery" },
    found.gaps.length ? gaps.trim() : "The cited text stands nowhere else in the latest build, letter for letter.");
}

// Unchanged or moved: the same text at the built commit, with a link to the span there.
function showKept(view, result, sel) {
  const { main, head, title, body, by } = view;
  const headShort = head.slice(0, 12);
  const selector = shiftedSelector(sel, result.lineShift, result.charShift) || linesSelector(result.first, result.last);
  const link = el("a", { href: versionHref(main, result.blob, head, result.path, selector) },
    `${result.path}@${headShort}#${selector}`);
  if (result.status === "unchanged") {
    title.append("Unchanged in the latest build.");
    body.append("The cited text is the same at ", el("code", {}, headShort), ": ", link);
    return;
  }
  title.append(`Unchanged, but moved to ${linesLabel(result.first, result.last, "–")}` +
    (result.path !== pageCommitAndPath(main)[1] ? ` of ${result.path}.` : "."));
  body.append("Same text at ", el("code", {}, headShort), ": ", link);
  if (by) body.append(" Renamed by ", ...commitLine(by), ".");
}

// A hunk line with its changed words (code-point ranges the build found, indexer/text/word_diff.py)
// inside <ins> or <del>.
function markedLine(line, ranges) {
  const tag = line[0] === "+" ? "ins" : "del";
  const parts = [];
  let at = 0;
  for (const [start, end] of ranges) {
    const [a, b] = [unitOffset(line, start), unitOffset(line, end)];
    parts.push(line.slice(at, a), el(tag, {}, line.slice(a, b)));
    at = b;
  }
  parts.push(line.slice(at) + "\n");
  return parts;
}

// git's diff of the cited lines, and its size in rows of the banner's diff column (hunk headers included).
function diffBlock(hunks) {
  const diff = el("pre", { class: "hunk", tabindex: "0", "aria-label": "git's diff of the cited lines" });
  let size = 0;
  for (const [os, oc, ns, nc, lines, marks = []] of hunks) {
    diff.append(el("span", { class: "hunk-head" }, `@@ -${os},${oc} +${ns},${nc} @@\n`));
    lines.forEach((line, n) => {
      const ranges = marks.filter((m) => m[0] === n).map((m) => [m[1], m[2]]);
      const kind = line[0] === "+" ? "add" : line[0] === "-" ? "del" : "";
      diff.append(el("span", { class: kind }, ...(ranges.length ? markedLine(line, ranges) : [line + "\n"])));
    });
    size += 1 + lines.reduce((rows, line) => rows + Math.max(1, Math.ceil(codePoints(line) / ROW_CHARS)), 0);
  }
  return [diff, size];
}

// Changed: where the lines are now, and git's diff, open beside the verdict when it is short.
function showChanged(view, result, note) {
  const { main, banner, head, title, body, cited } = view;
  if (note) {
    title.append("The cited text changed.");
    const lines = result.last >= result.first;
    const selector = lines ? `L${result.first}-L${result.last}` : `L${Math.max(1, result.first)}`;
    body.append(`Now ${lines ? linesLabel(result.first, result.last, "–") : `near line ${result.first}`} of `,
      el("a", { href: versionHref(main, result.blob, head, result.path, selector) }, result.path),
      " at ", el("code", {}, head.slice(0, 12)), ".");
  }
  const [diff, size] = diffBlock(result.hunks);
  if (size <= SHORT_DIFF_ROWS) {
    // A short diff is shown open, with the commit that made it, beside the verdict (inside
    // the box reserved for the banner on a wide screen).
    bannerText(banner).replaceChildren(cited, title, body, ...(note ? [el("p", { class: "banner-note" }, note)] : []));
    banner.classList.add("has-diff");
    bannerText(banner).after(el("div", { class: "banner-diff" }, ...[view.byLine("Changed"), diff].filter(Boolean)));
    return;
  }
  const parts = [cited, title, view.byLine("Changed"), body].filter(Boolean);
  // The note goes under "Show the change": the banner keeps the height reserved for it.
  const more = note ? [el("p", {}, note), diff] : [diff];
  bannerText(banner).replaceChildren(...parts, el("details", {}, el("summary", {}, "Show the change"), ...more));
}

// The banner's parts and the page facts every verdict's text needs; resets what a previous verdict set.
function bannerView(main, result, sel, head) {
  const banner = document.getElementById("banner");
  for (const key of ["recovery", "suggestion", "places", "changedBy"]) delete banner.dataset[key];
  banner.dataset.status = result.status;
  banner.className = `banner banner-${result.status}`;
  banner.querySelectorAll(".banner-diff").forEach((n) => n.remove());
  if (result.first !== undefined) {
    banner.dataset.newFirst = result.first;
    banner.dataset.newLast = result.last;
  }
  if (result.path) banner.dataset.newPath = result.path;
  const by = result.changedBy;
  if (by) banner.dataset.changedBy = by.commit;
  const [citedCommit, citedPath] = pageCommitAndPath(main);
  const cited = el("p", { class: "banner-cited" }, "Cited: ",
    el("code", {}, `${citedPath}@${(citedCommit || "?").slice(0, 12)}#${sel.text}`));
  return {
    main, banner, head, by, cited, citedCommit,
    title: el("p", { class: "banner-title" }),
    body: el("p", { class: "banner-body" }),
    byLine: (verb) => (by ? el("p", { class: "banner-by" }, `${verb} by `, ...commitLine(by)) : null),
  };
}

/** Write the verdict `result` for the cited `sel` into #banner; `headInfo` is site.json. */
export function showBanner(main, result, sel, headInfo) {
  const view = bannerView(main, result, sel, headInfo.head);
  const { banner, title, body, cited } = view;
  let byPara = null;
  if (result.status === "unchanged" || result.status === "moved") {
    showKept(view, result, sel);
  } else if (result.status === "changed") {
    showChanged(view, result, showRecovery(view, result));
    return;
  } else if (result.status === "deleted") {
    const note = showRecovery(view, result);
    if (note) {
      title.append("Deleted in the latest build.");
      body.append("Below is the text as cited, from ", el("code", {}, (view.citedCommit || "").slice(0, 12)), ". ", note);
    }
    byPara = view.byLine("Deleted");
  } else if (result.status === "unresolvable") {
    title.append("This permalink does not resolve.");
    body.append(result.reason);
  } else {
    title.append("Cannot compare with the latest build.");
    body.append(result.reason || "This version is not in the published history of the path.");
  }
  bannerText(banner).replaceChildren(...[cited, title, byPara, body].filter(Boolean));
}
