// Where did the cited text go? indexer.citations.recovery's exact places, in the browser. The
// cited text is searched, exactly after normalization (quote.js), in the built commit's text of
// the path (its document page holds it) and in the other documents Pagefind names as holding its
// words. Only exact places are reported: a fuzzy match is never shown as where the text went.
import { documentFacts } from "./page.js";
import { sitePage } from "./paths.js";
import { normalizeQuote, quotePlaces, searchWords } from "./quote.js";
import { load as loadIndex } from "./search-index.js";
import { linesSelector, spanSelector } from "./selectors.js";

const MAX_PLACES = 10;
const MAX_CANDIDATES = 12;

// The text and blob of `path`'s document page at the site's built commit, or null.
async function headDocument(root, path) {
  const response = await fetch(`${root}${sitePage("doc", path)}`, { cache: "no-cache" });
  if (!response.ok) return null;
  const doc = new DOMParser().parseFromString(await response.text(), "text/html");
  const text = doc.getElementById("src"), facts = documentFacts(doc);
  return text && facts ? { path, text: text.textContent, blob: facts.blob } : null;
}

// The paths of the documents Pagefind says hold `words` (the first MAX_CANDIDATES).
async function candidatePaths(root, words) {
  const index = await loadIndex(new URL(root || "./", window.location.href));
  let found = await index.search(words.slice(0, 6).join(" "));
  // Too many documents hold the longest words: every further word narrows the search.
  if (found.results.length > MAX_CANDIDATES && words.length > 6) found = await index.search(words.join(" "));
  const data = await Promise.all(found.results.slice(0, MAX_CANDIDATES).map((r) => r.data()));
  return { paths: data.map((d) => d.meta && d.meta.path).filter(Boolean), more: found.results.length > MAX_CANDIDATES };
}

/** Where the text `cited` (of a span in the unit `kind`) stands at the site's HEAD, `path` first.
 * Each place is where its words stand (`selector`) and, in `moved`, the span re-pinned there when
 * that is a move (`sameShape`), else null. */
export function findCitedText(root, path, cited, kind) {
  return findText(root, normalizeQuote(cited), path ? [path] : [], kind, cited);
}

const newlines = (points) => points.reduce((n, ch) => n + (ch === "\n"), 0);

// indexer.citations.recovery.same_shape: the cited span re-pinned where its words stand, as many
// lines before and after them as it had, when those lines hold exactly the cited text; else null.
// A character span is re-pinned as the place itself (which holds exactly the words).
export function sameShape(cited, wanted, place, kind) {
  if (kind !== "lines") return spanSelector(place.text, place.start, place.end, kind);
  const [match] = quotePlaces(wanted, cited, 1);
  if (!match) return null;
  const points = Array.from(cited), doc = Array.from(place.text);
  const before = newlines(points.slice(0, match[0]));
  const inner = newlines(points.slice(match[0], Math.max(match[0], match[1] - 1)));
  const total = points.length && points[points.length - 1] !== "\n" ? newlines(points) + 1 : newlines(points);
  const after = total - 1 - before - inner;
  const first = 1 + newlines(doc.slice(0, place.start));
  const last = 1 + newlines(doc.slice(0, Math.max(place.start, place.end - 1)));
  if (last - first !== inner || first - before < 1) return null;
  const starts = [0];
  doc.forEach((ch, i) => ch === "\n" && starts.push(i + 1));
  const lineCount = doc.length && doc[doc.length - 1] !== "\n" ? starts.length : starts.length - 1;
  const [a, b] = [first - before, last + after];
  if (b > lineCount) return null;
  const text = doc.slice(starts[a - 1], b < starts.length ? starts[b] : doc.length).join("");
  return normalizeQuote(text) === wanted ? linesSelector(a, b) : null;
}

// Exact places of the normalized text `wanted` at the site's HEAD: in the documents `paths`,
// then in those Pagefind names; `gaps` says what could not be compared. Given the `cited` text,
// each place also says in `moved` where the cited span re-pinned there stands (see sameShape).
export async function findText(root, wanted, paths, kind, cited) {
  const found = { places: [], gaps: [] };
  if (!wanted) return found;
  paths = paths.slice();
  const words = searchWords(wanted, 10);
  if (words.length === 0) found.gaps.push("the cited text has no word long enough to look up in other documents");
  else {
    try {
      const candidates = await candidatePaths(root, words);
      for (const p of candidates.paths) if (!paths.includes(p)) paths.push(p);
      if (candidates.more) found.gaps.push(`more than ${MAX_CANDIDATES} documents hold its words; the first were compared`);
    } catch {
      found.gaps.push("the site's search index could not be read, so other documents were not compared");
    }
  }
  const docs = await Promise.all(paths.map((p) => headDocument(root, p).catch(() => null)));
  docs.forEach((doc, i) => {
    if (!doc) {
      found.gaps.push(`the latest text of ${paths[i]} could not be read`);
      return;
    }
    for (const [start, end] of quotePlaces(wanted, doc.text, MAX_PLACES)) {
      const place = { path: doc.path, blob: doc.blob, selector: spanSelector(doc.text, start, end, kind) };
      if (cited !== undefined) place.moved = sameShape(cited, wanted, { text: doc.text, start, end }, kind);
      found.places.push(place);
    }
  });
  return found;
}
