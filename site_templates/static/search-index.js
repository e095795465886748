// The site's search index: the Pagefind bundles that search-bundles.json lists, as one index.
// The first bundle (the base, or its first part) is loaded: its pagefind.js, its WebAssembly. The
// others (the base's other parts, then the delta: the pages changed since the base was made) are
// merged into it with Pagefind's mergeIndex, which searches them all and ranks their results
// together. Base pages superseded since (their document changed or went) are dropped from every
// answer by their Pagefind id before anything of them is fetched, so a search never shows text
// that is not at the built commit.
//
// Pagefind keeps an index per language (each stemmed as itself) and searches the one its page's
// <html lang> names: the search page names the language chosen here before Pagefind starts.

const loading = new Map();

/**
 * The language to search among the site's `languages` ({ tag: pages }, most pages first, as
 * search-bundles.json lists them): the one `wanted`, else the reader's first (`readers`, as
 * navigator.languages), each matched whole and then by its first subtag; else the largest.
 */
export function chooseLanguage(languages, wanted, readers) {
  const tags = Object.keys(languages);
  const match = (asked) => {
    const tag = (asked || "").toLowerCase().replace(/_/g, "-");
    return tags.find((t) => t === tag) || tags.find((t) => t.split("-")[0] === tag.split("-")[0]);
  };
  if (wanted && match(wanted)) return match(wanted);
  for (const reader of readers || []) if (match(reader)) return match(reader);
  return tags[0] || "";
}

async function open(root, options) {
  const response = await fetch(new URL("search-bundles.json", root), { cache: "no-cache" });
  if (!response.ok) throw new Error(`search-bundles.json: HTTP ${response.status}`);
  const listing = await response.json();
  const bundles = listing.bundles || [];
  const superseded = new Set(listing.superseded || []);
  if (bundles.length === 0) throw new Error("the site has no search bundles");
  const languages = listing.languages || {};
  const { language: wanted, ...rest } = options;
  const language = chooseLanguage(languages, wanted, globalThis.navigator ? navigator.languages : []);
  if (language && globalThis.document) document.documentElement.lang = language;
  // Pagefind would answer from a bundle's largest language where it lacks the one searched:
  // only the bundles that hold it are searched (a site listing no languages: all of them).
  const held = listing.bundle_languages || {};
  const holding = bundles.filter((name) => !held[name] || !language || held[name].includes(language));
  if (holding.length > 0) bundles.splice(0, bundles.length, ...holding);
  const folder = (name) => new URL(`pagefind/${name}/`, root);
  const pagefind = await import(new URL("pagefind.js", folder(bundles[0])).href);
  // Result URLs are the pages' paths from the site root, in every bundle.
  const shared = { baseUrl: root.pathname, ...rest };
  await pagefind.options(shared);
  await pagefind.init();
  await Promise.all(bundles.slice(1).map((name) => pagefind.mergeIndex(folder(name).href, shared)));
  return {
    language, // the language searched, and the others the site has ({ tag: pages })
    languages,
    // A result's id names its fragment, which Pagefind fetches only when asked for its data.
    async search(term, searchOptions = {}) {
      const found = await pagefind.search(term, searchOptions);
      if (!found || superseded.size === 0) return found;
      return { ...found, results: found.results.filter((result) => !superseded.has(result.id)) };
    },
  };
}

// The index of the site at `root` (a URL), opened once per page.
export function load(root, options = {}) {
  const key = root.href;
  if (!loading.has(key)) {
    const opened = open(root, options);
    opened.catch(() => loading.delete(key));
    loading.set(key, opened);
  }
  return loading.get(key);
}
