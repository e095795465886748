// Unit tests of static/dom.js, with a stub document.
import assert from "node:assert/strict";
import { test } from "node:test";
import { el } from "../../site_templates/static/dom.js";

globalThis.document = {
  createElement: (tag) => ({
    tag, attrs: {}, children: [],
    setAttribute(k, v) { this.attrs[k] = v; },
    append(c) { this.children.push(c); },
  }),
};

test("el sets the attributes and appends the children in order", () => {
  const node = el("p", { class: "banner-title", title: "t" }, "Cited: ", el("code", {}, "a.md"));
  assert.equal(node.tag, "p");
  assert.deepEqual(node.attrs, { class: "banner-title", title: "t" });
  assert.equal(node.children[0], "Cited: ");
  assert.equal(node.children[1].tag, "code");
  assert.deepEqual(el("span", null).attrs, {});
});
