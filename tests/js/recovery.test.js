// Unit tests of static/recovery.js, with the site's document pages served by a stub fetch and
// parsed by a stub DOMParser (the banner that shows the result: test_site_browser.py).
import assert from "node:assert/strict";
import { test } from "node:test";
import { findCitedText, findText, sameShape } from "../../site_templates/static/recovery.js";

function serve(pages) {
  globalThis.window = { location: { href: "https://s.example/v/b.html" } };
  globalThis.fetch = async (url) => {
    const page = pages[String(url)];
    return { ok: page !== undefined, status: page ? 200 : 404, text: async () => JSON.stringify(page), json: async () => ({}) };
  };
  globalThis.DOMParser = class {
    parseFromString(html) {
      const page = JSON.parse(html);
      // A document page names its blob in its link to its version (page.js documentFacts).
      const version = { getAttribute: () => `../../v/${page.blob}.html?commit=c&path=p#L1` };
      const ids = { src: { textContent: page.text }, version };
      return { getElementById: (id) => ids[id] || null };
    }
  };
}

test("the cited text is found, exactly, in the path's page at the site's HEAD", async () => {
  serve({ "s/doc/a%20b.md.html": { text: "intro\nThe records are kept\nend\n", blob: "b1" } });
  const found = await findCitedText("s/", "a b.md", "the\u00a0records  are kept", "lines");
  assert.deepEqual(found.places, []); // case matters: "The" is not "the"
  const exact = await findCitedText("s/", "a b.md", "The records\n are kept", "chars");
  assert.deepEqual(exact.places, [{ path: "a b.md", blob: "b1", selector: "c6-26", moved: "c6-26" }]);
  // The site has no search index here: what was not compared is said, never hidden.
  assert.deepEqual(exact.gaps, ["the site's search index could not be read, so other documents were not compared"]);
});

test("a page that cannot be read, and a text with no word to look up, are gaps", async () => {
  serve({});
  const found = await findText("s/", "xy", ["gone.md"], "lines");
  assert.deepEqual(found, { places: [], gaps: [
    "the cited text has no word long enough to look up in other documents",
    "the latest text of gone.md could not be read",
  ] });
  assert.deepEqual(await findText("s/", "", ["a.md"], "lines"), { places: [], gaps: [] });
});

test("a place is a move only when the cited lines, re-pinned there, hold exactly the cited text", async () => {
  const text = "# Title\n\n## Prior art\n\nBody.\n\nEnd.\n";
  serve({ "s/doc/a.md.html": { text, blob: "b1" } });
  // "# Prior art" stands inside "## Prior art": found, but not a move.
  const heading = await findCitedText("s/", "a.md", "\n# Prior art\n\n", "lines");
  assert.deepEqual(heading.places.map((p) => [p.selector, p.moved]), [["L3", null]]);
  // A range of blank line, paragraph, blank line moves as three lines, never narrowed to one.
  const body = await findCitedText("s/", "a.md", "\nBody.\n\n", "lines");
  assert.deepEqual(body.places.map((p) => [p.selector, p.moved]), [["L5", "L4-L6"]]);
  // Past the end of the document there is no such range.
  assert.equal(sameShape("\nEnd.\n\n", "End.", { text, start: text.indexOf("End."), end: text.length - 1 }, "lines"), null);
});
