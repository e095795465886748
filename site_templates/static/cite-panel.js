// Select to cite: the panel that shows a selection's citation (permalink, text form, Markdown)
// and copies it. The panel is made here, since it is of use only with this script.
import { citationStrings } from "./citation-text.js";
import { el } from "./dom.js";
import { pageCommitAndPath, siteBase } from "./page.js";
import { charSpanOf } from "./selectors.js";
import { selectedSpan } from "./selection.js";
import { lineStarts, sourcePoints, src } from "./source-view.js";

const CITE_PANEL = `<button type="button" id="cite-open" class="cite-open">Cite: copy permalink</button>
  <div id="cite-details" class="cite-details" hidden>
    <label for="cite-permalink">Permalink</label>
    <input id="cite-permalink" readonly>
    <label for="cite-text">Text form (path@commit#span)</label>
    <input id="cite-text" readonly>
    <label for="cite-markdown">Markdown with the quote</label>
    <textarea id="cite-markdown" rows="4" readonly></textarea>
    <div class="cite-actions">
      <button type="button" data-copy="cite-permalink">Copy permalink</button>
      <button type="button" data-copy="cite-text">Copy text form</button>
      <button type="button" data-copy="cite-markdown">Copy Markdown</button>
      <button type="button" id="cite-close">Close</button>
    </div>
    <p id="cite-status" class="cite-status" role="status"></p>
  </div>`;

function citePanel(main) {
  const made = document.getElementById("cite");
  if (made) return made; // a page from a template that still includes the panel
  const aside = el("aside", { id: "cite", class: "cite", "aria-label": "Cite the selection" });
  aside.hidden = true;
  aside.innerHTML = CITE_PANEL;
  main.append(aside);
  return aside;
}

function copy(value, status, done) {
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(value).then(() => { status.textContent = done; },
      () => { status.textContent = "Select the text above and copy it."; });
  } else {
    status.textContent = "Select the text above and copy it.";
  }
}

// Why the page cannot cite, or null: a version page that does not resolve or lacks ?commit=.
function cannotCite(main, commit) {
  if (main.dataset.unresolvable === "1") return "This permalink does not resolve: cite from the document page instead.";
  if (!commit || !/^[0-9a-f]{40}$/.test(commit)) {
    return "This page was opened without ?commit=…: cite from the document page instead.";
  }
  return null;
}

function pageFacts(main, commit, path) {
  return { points: sourcePoints(), starts: lineStarts(), commit, path, blob: main.dataset.blob,
    identity: main.dataset.identity || "", base: siteBase(main) };
}

// Returns offer(sel): the span in the address (#L12 after following a line number, with the
// keyboard too) can be cited without selecting anything.
export function setupCite(main) {
  if (!src()) return () => {};
  const aside = citePanel(main);
  const details = document.getElementById("cite-details");
  const status = document.getElementById("cite-status");
  let current = null;
  let offered = null;
  document.addEventListener("selectionchange", () => {
    const span = selectedSpan();
    if (span) {
      current = span;
      aside.hidden = false;
    } else if (details.hidden) {
      current = offered;
      aside.hidden = !offered;
    }
  });
  document.getElementById("cite-open").addEventListener("click", () => {
    if (!current) return;
    const [commit, path] = pageCommitAndPath(main);
    const refused = cannotCite(main, commit);
    if (refused) {
      status.textContent = refused;
      details.hidden = false;
      return;
    }
    const c = citationStrings(pageFacts(main, commit, path), current);
    document.getElementById("cite-permalink").value = c.permalink;
    document.getElementById("cite-text").value = c.text;
    document.getElementById("cite-markdown").value = c.markdown;
    details.hidden = false;
    const note = current.note ? current.note + " " : "";
    status.textContent = note;
    copy(c.permalink, status, note + "Permalink copied.");
  });
  document.getElementById("cite-close").addEventListener("click", () => {
    details.hidden = true;
    aside.hidden = true;
  });
  aside.querySelectorAll("[data-copy]").forEach((button) =>
    button.addEventListener("click", () => {
      const field = document.getElementById(button.dataset.copy);
      copy(field.value, status, "Copied.");
    }));
  return (sel) => {
    offered = null;
    if (sel && sel.kind === "lines") offered = { kind: "lines", a: sel.a, b: sel.b };
    else if (sel) {
      const [a, b] = charSpanOf(sel, lineStarts());
      offered = { kind: "chars", a, b };
    }
    if (details.hidden) {
      current = offered;
      aside.hidden = !offered;
    }
  };
}
