// pincite site search index: the Pagefind bundles that search-bundles.json lists, as one index.
// The first bundle is loaded (its pagefind.js, its WebAssembly); the others are merged into it
// with Pagefind's mergeIndex, which searches every bundle and ranks their results together.
"use strict";

var PinciteSearchIndex = (() => {
  const loading = new Map();

  async function open(root, options) {
    const response = await fetch(new URL("search-bundles.json", root), { cache: "no-cache" });
    if (!response.ok) throw new Error(`search-bundles.json: HTTP ${response.status}`);
    const bundles = (await response.json()).bundles || [];
    if (bundles.length === 0) throw new Error("the site has no search bundles");
    const folder = (name) => new URL(`pagefind/${name}/`, root);
    const pagefind = await import(new URL("pagefind.js", folder(bundles[0])).href);
    // Result URLs are the pages' paths from the site root, in every bundle.
    const shared = { baseUrl: root.pathname, ...options };
    await pagefind.options(shared);
    await pagefind.init();
    await Promise.all(bundles.slice(1).map((name) => pagefind.mergeIndex(folder(name).href, shared)));
    return pagefind;
  }

  // The index of the site at `root` (a URL), opened once per page.
  function load(root, options = {}) {
    const key = root.href;
    if (!loading.has(key)) {
      const opened = open(root, options);
      opened.catch(() => loading.delete(key));
      loading.set(key, opened);
    }
    return loading.get(key);
  }

  return { load };
})();
