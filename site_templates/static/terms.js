// Words a search result linked with (?hl=...) are marked in the text, which stays exact: each
// <mark class="term"> wraps characters of the text and adds none.
import { src } from "./source-view.js";

/** A pattern matching any of the words of `terms` (of two letters or more), or null. */
export function termPattern(terms, flags) {
  const words = (terms || "").split(/\s+/).filter((w) => w.length > 1).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return words.length === 0 ? null : new RegExp(words.join("|"), flags);
}

function markTerms(scope, re, probe) {
  const walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
  const nodes = [];
  let node;
  while ((node = walker.nextNode())) if (probe.test(node.data)) nodes.push(node);
  for (const n of nodes) {
    const parts = [];
    let last = 0;
    n.data.replace(re, (m, at) => {
      parts.push(document.createTextNode(n.data.slice(last, at)));
      const mark = document.createElement("mark");
      mark.className = "term";
      mark.textContent = m;
      parts.push(mark);
      last = at + m.length;
      return m;
    });
    parts.push(document.createTextNode(n.data.slice(last)));
    n.replaceWith(...parts);
  }
  return nodes.length ? scope.querySelector("mark.term") : null;
}

/** Mark the address's ?hl= words in both views; returns the first mark, or null. */
export function highlightTerms() {
  const terms = new URLSearchParams(window.location.search).get("hl");
  const re = termPattern(terms, "giu"), probe = termPattern(terms, "iu");
  if (!re) return null;
  let first = null;
  for (const scope of [document.getElementById("rendered"), src()]) {
    if (scope) first = first || markTerms(scope, re, probe);
  }
  return first;
}
