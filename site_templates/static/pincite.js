// pincite site, every page: span highlighting in the source view, the document's two views,
// search words marked, Copy buttons on code blocks, and select-to-cite. Offsets are Unicode code
// points of the document text (as in `pincite cite --chars`); codepoints.js converts at the edge. A version page adds its
// drift banner (version-page.js). The modules load natively (<script type="module">), so a page
// opened from file:// runs none of them and reads as without JavaScript.
import { setupCite } from "./cite-panel.js";
import { setupCopyButtons } from "./copy-code.js";
import { el } from "./dom.js";
import { completeMain, identityMismatch } from "./page.js";
import { parseSelector } from "./selectors.js";
import { highlight, linkLineNumbers, src } from "./source-view.js";
import { highlightTerms } from "./terms.js";
import { setupScrollers, setupViews } from "./views.js";
// The rest of the page's modules, named here so that the browser fetches them all once it has read
// this file: every level of imports it would otherwise find on its own costs a round trip.
import "./citation-text.js";
import "./codepoints.js";
import "./paths.js";
import "./rendered-align.js";
import "./selection.js";

// The short header (compact.html) holds the brand alone (and the index file's link when the site
// offers one): the site's links are the script's, as without JavaScript there is no search and the
// home page holds the Citations link. A document page gets the full header's search box
// (header.html), the same form, submitted to the search page; the site's other compact pages a
// Search link. Pages with the full header have both and are left as they are.
function siteLinks(main) {
  const top = document.querySelector("body > header");
  if (!top || top.querySelector('.searchbox, a[href$="search.html"]')) return;
  const root = main.dataset.root;
  let links = top.querySelector(".links");
  if (!links) links = top.appendChild(el("nav", { class: "links", "aria-label": "Site" }));
  links.prepend(el("a", { href: `${root}citations.html` }, "Citations"));
  const action = `${root}search.html`;
  if (main.dataset.kind !== "document") {
    links.append(el("a", { href: action }, "Search"));
    return;
  }
  const input = el("input", {
    id: "q-top", name: "q", type: "search", placeholder: "Search the corpus", autocomplete: "off",
    "aria-label": "Search the corpus",
  });
  const attrs = { class: "searchbox", action, role: "search", "aria-label": "Site" };
  links.before(el("form", attrs, input, el("button", {}, "Search")));
}

function start() {
  document.documentElement.classList.add("js");
  const main = document.getElementById("content");
  if (main) {
    completeMain(main);
    siteLinks(main);
  }
  if (!main || !src()) return;
  linkLineNumbers();
  const sel = parseSelector(window.location.hash);
  const showView = setupViews(sel);
  if (!identityMismatch(main)) highlight(sel);
  const term = highlightTerms();
  if (term && !sel && !window.location.hash) term.scrollIntoView({ block: "center" });
  setupScrollers();
  setupCopyButtons();
  const offer = setupCite(main);
  offer(sel);
  window.addEventListener("hashchange", () => {
    const next = parseSelector(window.location.hash);
    // A link inside the page: a span is in the source view, a heading in the rendered one.
    const id = decodeURIComponent(window.location.hash.slice(1));
    const rendered = document.getElementById("rendered");
    if (showView && next) showView("source-view");
    else if (showView && id && rendered && rendered.hidden && rendered.contains(document.getElementById(id))) {
      showView("rendered");
      document.getElementById(id).scrollIntoView();
    }
    if (!identityMismatch(main)) highlight(next);
    offer(next);
  });
}

start();
