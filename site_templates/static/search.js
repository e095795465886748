// pincite site search: Pagefind's index of the document pages, with pincite's own results.
// Excerpts are rebuilt from text and <mark> only, so no markup from the index reaches the page.
"use strict";

(() => {
  const main = document.getElementById("content");
  const form = document.getElementById("search-form");
  const input = document.getElementById("q");
  const folderSelect = document.getElementById("f-folder");
  const classSelect = document.getElementById("f-class");
  const status = document.getElementById("search-status");
  const list = document.getElementById("results");
  const rootUrl = new URL(main.dataset.root || "./", window.location.href);
  let pagefind = null;
  const PAGE = 10;

  function safeExcerpt(html) {
    const doc = new DOMParser().parseFromString(`<body>${html}</body>`, "text/html");
    const out = document.createElement("span");
    out.className = "excerpt";
    for (const node of doc.body.childNodes) {
      if (node.nodeType === Node.ELEMENT_NODE && node.nodeName === "MARK") {
        const mark = document.createElement("mark");
        mark.textContent = node.textContent;
        out.append(mark);
      } else {
        out.append(document.createTextNode(node.textContent));
      }
    }
    return out;
  }

  function withTerms(url, terms) {
    const u = new URL(url, rootUrl);
    u.searchParams.set("hl", terms);
    return u.pathname + u.search + u.hash;
  }

  function choose(select, value) {
    if (value && Array.from(select.options).some((o) => o.value === value)) select.value = value;
  }

  async function load() {
    if (pagefind) return pagefind;
    pagefind = await import(new URL("pagefind/pagefind.js", rootUrl).href);
    await pagefind.options({ baseUrl: rootUrl.pathname, excerptLength: 24 });
    await pagefind.init();
    return pagefind;
  }

  function resultItem(data, terms) {
    const li = document.createElement("li");
    li.className = "result";
    const subs = (data.sub_results || []).filter((s) => s.url !== data.url).slice(0, 3);
    const best = subs[0] || data;
    const link = document.createElement("a");
    link.className = "result-link";
    link.href = withTerms(best.url, terms);
    // The document's title, with its path beside it (the path alone when it has no title).
    const path = data.meta.path || data.url;
    link.textContent = data.meta.title || path;
    li.append(link);
    if (data.meta.title && data.meta.title !== path) {
      const where = document.createElement("span");
      where.className = "result-path";
      where.textContent = path;
      li.append(" ", where);
    }
    if (subs[0] && subs[0].title) {
      const section = document.createElement("span");
      section.className = "result-section";
      section.textContent = " › " + subs[0].title;
      li.append(section);
    }
    const tags = document.createElement("span");
    tags.className = "tag";
    tags.textContent = (data.filters && data.filters.class && data.filters.class[0]) || "";
    if (tags.textContent) li.append(" ", tags);
    const p = document.createElement("p");
    p.append(safeExcerpt(best.excerpt || data.excerpt));
    li.append(p);
    return li;
  }

  async function run(query, folder, cls) {
    list.replaceChildren();
    document.querySelectorAll(".more-results").forEach((b) => b.remove());
    if (!query.trim()) {
      status.textContent = "Type words to search the documents of the built commit.";
      return;
    }
    status.textContent = "Searching…";
    const filters = {};
    if (folder) filters.folder = folder;
    if (cls) filters.class = cls;
    const search = await pagefind.search(query, { filters });
    // Each result's excerpt is a download: fetch a page of them at a time, more on request.
    let shown = 0;
    const more = document.createElement("button");
    more.type = "button";
    more.className = "more-results";
    more.textContent = "Show more results";
    const showPage = async () => {
      const batch = await Promise.all(search.results.slice(shown, shown + PAGE).map((r) => r.data()));
      shown += batch.length;
      more.remove();
      list.append(...batch.map((d) => resultItem(d, query)));
      status.textContent = `${search.results.length} document(s) match` +
        (search.results.length > shown ? `; showing ${shown}.` : ".");
      if (search.results.length > shown) list.after(more);
    };
    more.addEventListener("click", showPage);
    await showPage();
  }

  async function start() {
    const params = new URLSearchParams(window.location.search);
    input.value = params.get("q") || "";
    choose(folderSelect, params.get("folder"));
    choose(classSelect, params.get("class"));
    try {
      await load();
    } catch (err) {
      status.textContent = "The search index could not be loaded (was the site built with Pagefind?).";
      return;
    }
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const url = new URL(window.location.href);
      url.searchParams.set("q", input.value);
      url.searchParams.set("folder", folderSelect.value);
      url.searchParams.set("class", classSelect.value);
      window.history.replaceState(null, "", url);
      run(input.value, folderSelect.value, classSelect.value);
    });
    await run(input.value, folderSelect.value, classSelect.value);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
