// What a page says about itself: the data attributes of <main id="content"> (written by
// site_templates/document.html and version.html, completed from what the page shows) and a version
// page's ?commit=&path=&x= query.
import { quotePath } from "./paths.js";

const BLOB_NAME = /^([0-9a-f]{40}|[0-9a-f]{64})(\.html)?$/;

/** What a document page shows of its document, in `doc` (this page's document or one fetched): the
 * blob, commit and path of its link to its version (`v/<blob>.html?commit=&path=`, id `version`),
 * or null where the link is not there. The page does not write them
 * again on <main> (tests/test_site_bytes.py); indexer/site/page_facts.py reads the same for the
 * search record. */
export function documentFacts(doc) {
  const link = doc.getElementById("version");
  const href = link && link.getAttribute("href");
  if (!href) return null;
  const url = new URL(href, "https://site.invalid/");
  const blob = decodeURIComponent(url.pathname.split("/").pop()).replace(/\.html$/, "");
  return { blob, commit: url.searchParams.get("commit"), path: url.searchParams.get("path") };
}

/** Fill in the attributes of `main` its page leaves out because the page holds them already,
 * written once a page (tests/test_site_bytes.py): the site's root (the folder above this
 * module's static/); a version page's kind (it holds the banner), blob (its file name:
 * `v/<blob>.html`) and path (its heading, whose text is the path, or the path's `<code>` after the
 * title); a document page's blob, commit and path (`documentFacts`). A blob not found stays out, and the banner says it cannot tell
 * (drift is never guessed). */
export function completeMain(main) {
  const data = main.dataset;
  if (data.root === undefined) data.root = new URL("../", import.meta.url).href;
  if (data.kind === undefined && main.querySelector("#banner")) data.kind = "version";
  if (data.kind === "document") {
    const facts = data.blob === undefined && documentFacts(main.ownerDocument);
    if (facts) Object.assign(data, facts);
    return;
  }
  if (data.kind !== "version") return;
  if (data.blob === undefined) {
    const name = BLOB_NAME.exec(decodeURIComponent(window.location.pathname.split("/").pop()));
    if (name) data.blob = name[1];
  }
  const heading = main.querySelector("h1");
  if (data.knownPath === undefined && heading) data.knownPath = (heading.querySelector("code") || heading).textContent;
}

/** [commit, path] the page cites: a document page's own, a version page's from its address. */
export function pageCommitAndPath(main) {
  if (main.dataset.kind === "document") return [main.dataset.commit, main.dataset.path];
  const q = new URLSearchParams(window.location.search);
  return [q.get("commit"), q.get("path") || main.dataset.knownPath];
}

/** The site's base URL, ending in "/": the configured site_url, else where the page was served from. */
export function siteBase(main) {
  const configured = main.dataset.siteUrl;
  if (configured) return configured.replace(/\/+$/, "") + "/";
  return new URL(main.dataset.root || "./", window.location.href).href;
}

/** The relative address of a version page with a permalink's query and selector. */
export function versionHref(main, blob, commit, path, selector) {
  return `${main.dataset.root}v/${blob}.html?commit=${commit}&path=${quotePath(path)}#${selector}`;
}

/** Why the permalink's extractor identity (&x=) is not the one this page's text comes from, or null. */
export function identityMismatch(main) {
  const wanted = (new URLSearchParams(window.location.search).get("x") || "").toLowerCase();
  const shown = main.dataset.identity || "";
  if (!wanted || main.dataset.kind !== "version" || wanted.slice(0, shown.length) === shown) return null;
  return `This permalink counts its offsets in the text of extractor identity x=${wanted}, but this page ` +
    `shows the text of x=${shown || "none"} (the site was rebuilt with another extractor version). ` +
    "`pincite resolve` reads the cited text from the index.";
}
