// A Copy button on each code block of the rendered view. Progressive enhancement: without
// JavaScript the block is there to select. The button stands before its block, outside it, and
// its label is CSS's (`.copy-code::before`), so a block's text, which select-to-cite aligns with
// the source, holds no word of it.
import { el } from "./dom.js";

/** What Copy puts on the clipboard for a block's text: the code without the line end after it. */
export function codeToCopy(text) {
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}

// Where the clipboard is not offered (an http address that is not this machine), select the code
// for the reader to copy.
function selectCode(pre) {
  const range = document.createRange();
  range.selectNodeContents(pre);
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
}

function copy(pre, button) {
  const done = (state) => {
    button.dataset.state = state;
    window.setTimeout(() => delete button.dataset.state, 2000);
  };
  const fallback = () => {
    selectCode(pre);
    done("selected");
  };
  if (!navigator.clipboard || !window.isSecureContext) return fallback();
  navigator.clipboard.writeText(codeToCopy(pre.textContent)).then(() => done("copied"), fallback);
}

/** Put a Copy button before every code block of the rendered view. */
export function setupCopyButtons() {
  for (const pre of document.querySelectorAll("#rendered pre")) {
    const button = el("button", { type: "button", class: "copy-code", "aria-label": "Copy the code" });
    button.addEventListener("click", () => copy(pre, button));
    pre.before(el("div", { class: "code-tools" }, button));
  }
}
