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

// The short header (compact.html) has no Search link: without JavaScript there is no search. A
// document page gets the full header's search box (header.html), the same form, submitted to the
// search page; the site's other compact pages a link to it. Pages with the full header have both.
function searchEntry(main) {
  const links = document.querySelector(".top .links");
  if (!links || document.querySelector('.top .searchbox, .top a[href$="search.html"]')) return;
  const action = `${main.dataset.root}search.html`;
  if (main.dataset.kind !== "document") {
    // After the links the page holds: put before them, it would move them once the page is shown.
    links.append(" ", el("a", { href: action }, "Search"));
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
    searchEntry(main);
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
