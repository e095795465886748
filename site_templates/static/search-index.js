// The site's search index: the Pagefind bundles that search-bundles.json lists, as one index.
// The first bundle (the base, or its first part) is loaded: its pagefind.js, its WebAssembly. The
// others (the base's other parts, then the delta: the pages changed since the base was made) are
// merged into it with Pagefind's mergeIndex, which searches them all and ranks their results
// together. Base pages superseded since (their document changed or went) are dropped from every
// answer by their Pagefind id before anything of them is fetched, so a search never shows text
// that is not at the built commit.

const loading = new Map();

async function open(root, options) {
  const response = await fetch(new URL("search-bundles.json", root), { cache: "no-cache" });
  if (!response.ok) throw new Error(`search-bundles.json: HTTP ${response.status}`);
  const listing = await response.json();
  const bundles = listing.bundles || [];
  const superseded = new Set(listing.superseded || []);
  if (bundles.length === 0) throw new Error("the site has no search bundles");
  const folder = (name) => new URL(`pagefind/${name}/`, root);
  const pagefind = await import(new URL("pagefind.js", folder(bundles[0])).href);
  // Result URLs are the pages' paths from the site root, in every bundle.
  const shared = { baseUrl: root.pathname, ...options };
  await pagefind.options(shared);
  await pagefind.init();
  await Promise.all(bundles.slice(1).map((name) => pagefind.mergeIndex(folder(name).href, shared)));
  return {
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
