// A version page's own script (site_templates/version.html): the drift banner, read from the
// site's history files and decided by drift.js, and the links to the path's neighbouring versions.
// The page's common script runs first (this module imports it), so the span is highlighted and
// the cite panel made before the banner is decided.
import "./pincite.js";
import { showBanner } from "./banner.js";
import { el } from "./dom.js";
import { changedBy, decide } from "./drift.js";
import { commitMismatch, commitPlace, hasHistoryPage, historyRecord, siteInfo } from "./history-files.js";
import { identityMismatch, pageCommitAndPath, versionHref } from "./page.js";
import { setupPdfPages } from "./pdf-pages.js";
import { sitePage } from "./paths.js";
import { findCitedText } from "./recovery.js";
import { selectedSpan } from "./selection.js";
import { lineRangeOf, parseSelector } from "./selectors.js";
import { lineStarts, spanText, src } from "./source-view.js";
// The rest of the page's modules, named here so that the browser fetches them all once it has read
// this file: every level of imports it would otherwise find on its own costs a round trip.
import "./citation-text.js";
import "./cite-panel.js";
import "./codepoints.js";
import "./copy-code.js";
import "./quote.js";
import "./rendered-align.js";
import "./search-index.js";
import "./terms.js";
import "./views.js";

// The link to the path's history page, when it has one, and its previous and next versions, from
// the path's history file: the permalink's path may be another than the one the page names (a
// copy), and the neighbours are the script's alone. The nav is not in the page (it would be empty
// without JavaScript): it is made here, at the end of the page's line of facts (a page of an older
// template holds an empty one).
// The facts line is the one after the heading (a page of an older template names it `doc-meta`);
// the page links its own path's history for a reader without JavaScript, and it is not linked twice.
function versionNav(main, record, path) {
  let nav = document.getElementById("version-nav");
  const facts = main.querySelector(".doc-meta, #banner ~ h1 + p");
  if (!nav && facts) nav = facts.appendChild(el("span", { id: "version-nav", class: "version-nav" }));
  if (!nav || nav.dataset.done) return;
  nav.dataset.done = "1";
  const history = main.dataset.root + sitePage("changes", path);
  const linked = Array.from(main.querySelectorAll("a[href]")).some((a) => a.href === new URL(history, a.baseURI).href);
  if (hasHistoryPage(record) && !linked) nav.append(" · ", el("a", { href: history }, "history"));
  const began = (v) => Math.min(...v.ranges.map((r) => r[2]));
  const order = Object.entries(record.versions).sort((x, y) => began(x[1]) - began(y[1]));
  const at = order.findIndex(([blob]) => blob === main.dataset.blob);
  if (at < 0) return;
  const link = (n, rel, label) => {
    const [blob, v] = order[n];
    const first = v.ranges[v.ranges.length - 1][0];
    return el("a", { href: versionHref(main, blob, first, path, "L1"), rel }, label);
  };
  if (at > 0) nav.append(" · ", link(at - 1, "prev", "previous version"));
  if (at < order.length - 1) nav.append(" · ", link(at + 1, "next", "next version"));
}

// The verdict for the cited span `sel` of this version, its recovery and the commit that changed it.
async function verdict(main, record, entry, place, sel, recordOf) {
  const [commit] = pageCommitAndPath(main);
  const lines = lineRangeOf(sel, lineStarts());
  const result = decide(entry, sel, lines);
  // Searched before the banner is drawn: one change of the banner, no layout shift.
  if (result.status === "changed" || result.status === "deleted") {
    const target = entry.target;
    result.recovery = await findCitedText(main.dataset.root, target && target.path, spanText(sel), sel.kind);
  }
  if (result.status !== "unavailable") {
    // The walk starts at the permalink's commit (or where this version last began).
    const ranges = entry.ranges || [];
    const from = commit ? place : ranges.length ? ranges[ranges.length - 1][2] : -1;
    const walk = await changedBy(record, from, lines, recordOf).catch(() => null);
    if (walk) result.changedBy = result.status === "changed" || result.status === "deleted" ? walk.step : walk.renamed;
  }
  return result;
}

// A permalink without a selector names the whole version: the banner's verdict is about every line,
// not the first (a version whose later lines were edited is not "unchanged").
function wholeVersion() {
  const last = Math.max(1, document.querySelectorAll("#src > li").length);
  return { kind: "lines", a: 1, b: last, text: last > 1 ? `L1-L${last}` : "L1" };
}

async function setupBanner(main, sel) {
  const banner = document.getElementById("banner");
  const [commit, path] = pageCommitAndPath(main);
  if (!banner || !path) return;
  if (!sel) sel = wholeVersion();
  const otherIdentity = identityMismatch(main);
  if (otherIdentity) {
    // Fail closed: the permalink's offsets count another text than the one on this page.
    main.dataset.unresolvable = "1";
    showBanner(main, { status: "unresolvable", reason: otherIdentity }, sel, { head: "" });
    return;
  }
  try {
    const root = main.dataset.root;
    // The history file's name needs site.json's digits; the commit's place does not wait for them.
    const placed = commit ? commitPlace(root, commit) : Promise.resolve(-1);
    placed.catch(() => {}); // its failure is met below, or site.json's first
    const headInfo = await siteInfo(root);
    const recordOf = (p) => historyRecord(root, p, headInfo.history_digits);
    const [record, place] = await Promise.all([recordOf(path), placed]);
    const entry = record ? record.versions[main.dataset.blob] : null;
    if (entry) versionNav(main, record, path);
    const mismatch = entry && commit ? commitMismatch(place, entry.ranges, commit, path) : null;
    if (mismatch) {
      // Fail closed: the page's text is not what the permalink's commit held at that path.
      main.dataset.unresolvable = "1";
      showBanner(main, { status: "unresolvable", reason: mismatch }, sel, headInfo);
      return;
    }
    if (!entry) {
      const reason = `This version is not recorded for ${path} in the published history.`;
      showBanner(main, { status: "unavailable", reason }, sel, headInfo);
      return;
    }
    showBanner(main, await verdict(main, record, entry, place, sel, recordOf), sel, headInfo);
  } catch {
    showBanner(main, { status: "unavailable", reason: "The site's history files could not be read." }, sel,
      { head: "" });
  }
}

// The banner's live region (the verdict is written into it, and announced) and its Details
// button: neither does anything without JavaScript, so the page holds only the banner's text and
// they are made here, before any verdict is written.
function bannerControls(banner) {
  const text = el("div", { class: "banner-text", role: "status", "aria-live": "polite" });
  text.append(...banner.childNodes);
  const toggle = el("button", { type: "button", class: "banner-toggle", "aria-expanded": "false", "aria-controls": "banner" },
    "Details");
  banner.append(text, toggle);
  return toggle;
}

// On a narrow or short screen the banner is a bar that keeps the verdict in view over the cited
// lines; "Details" opens the rest. Its height is kept in --banner-h: a line the address or the
// script scrolls to stops below the banner, whatever it holds.
function setupBannerBar() {
  const banner = document.getElementById("banner");
  if (!banner) return;
  const toggle = banner.querySelector(".banner-toggle") || bannerControls(banner);
  if (toggle) {
    toggle.addEventListener("click", () => {
      const open = toggle.getAttribute("aria-expanded") !== "true";
      toggle.setAttribute("aria-expanded", open ? "true" : "false");
      toggle.textContent = open ? "Less" : "Details";
      if (open) banner.dataset.open = "1";
      else delete banner.dataset.open;
    });
  }
  const measure = () => {
    const sticky = getComputedStyle(banner).position === "sticky";
    const height = sticky ? banner.getBoundingClientRect().height : 0;
    document.documentElement.style.setProperty("--banner-h", `${Math.ceil(height)}px`);
  };
  if (typeof ResizeObserver !== "undefined") new ResizeObserver(measure).observe(banner);
  measure();
}

function start() {
  const main = document.getElementById("content");
  if (!main || !src() || main.dataset.kind !== "version") return;
  setupBannerBar();
  setupBanner(main, parseSelector(window.location.hash));
  // Offsets of another extractor's text light nothing, as in the text view.
  if (!identityMismatch(main)) setupPdfPages(parseSelector(window.location.hash), lineStarts(), selectedSpan);
  window.addEventListener("hashchange", () => setupBanner(main, parseSelector(window.location.hash)));
}

start();
