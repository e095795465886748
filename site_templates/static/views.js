// A document's two views, rendered and source, as keyboard-operable tabs; and the scrolling boxes
// of the rendered view, which take the focus only when they scroll.

import { el } from "./dom.js";

// The tabs are not in the page: read without JavaScript, both views show one after the other, and
// buttons that do nothing would be noise (and some 400 bytes on every document page).
function makeTabs(rendered, source) {
  const bar = el("div", { class: "views", role: "tablist", "aria-label": "View" });
  for (const [panel, id, label] of [[rendered, "tab-rendered", "Rendered"], [source, "tab-source", "Source"]]) {
    const tab = el("button", { type: "button", id, role: "tab", "aria-controls": panel.id }, label);
    panel.setAttribute("role", "tabpanel");
    panel.setAttribute("aria-labelledby", id);
    bar.append(tab);
  }
  rendered.before(bar);
  return bar.querySelectorAll('[role="tab"]');
}

/** Make the tabs; returns show(viewId), or null on a page with one view. */
export function setupViews(sel) {
  const rendered = document.getElementById("rendered");
  const source = document.getElementById("source-view");
  if (!rendered || !source) return null;
  const tabs = makeTabs(rendered, source);
  const show = (which) => {
    for (const t of tabs) {
      const on = t.getAttribute("aria-controls") === which;
      t.setAttribute("aria-selected", on ? "true" : "false");
      t.tabIndex = on ? 0 : -1;
      document.getElementById(t.getAttribute("aria-controls")).hidden = !on;
    }
  };
  tabs.forEach((t) => t.addEventListener("click", () => show(t.getAttribute("aria-controls"))));
  tabs.forEach((t) => t.addEventListener("keydown", (e) => {
    if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
      const other = Array.from(tabs).find((x) => x !== t);
      other.focus();
      other.click();
    }
  }));
  show(sel ? "source-view" : "rendered");
  return show;
}

// A code block or table wider than its box scrolls; the keyboard reaches it only then (a tab
// stop on every block would be noise). The build marks all of them focusable for pages read
// without JavaScript.
export function setupScrollers() {
  const boxes = document.querySelectorAll("#rendered pre.code, #rendered .table-wrap");
  if (boxes.length === 0 || typeof ResizeObserver === "undefined") return;
  const check = (box) => {
    if (box.clientWidth === 0) return; // hidden (the other view is shown): decided when it shows
    if (box.scrollWidth > box.clientWidth + 1) box.tabIndex = 0;
    else box.removeAttribute("tabindex");
  };
  const observer = new ResizeObserver((entries) => entries.forEach((e) => check(e.target)));
  boxes.forEach((box) => {
    observer.observe(box);
    check(box);
  });
}
