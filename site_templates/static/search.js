// The search page: Pagefind's index of the document pages (search-index.js), with pincite's own
// results.
// Excerpts are rebuilt from text and <mark> only, so no markup from the index reaches the page.
import { load as loadIndex } from "./search-index.js";

const main = document.getElementById("content");
const form = document.getElementById("search-form");
const input = document.getElementById("q");
const folderSelect = document.getElementById("f-folder");
const classSelect = document.getElementById("f-class");
const langSelect = document.getElementById("f-lang");
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

async function load(language) {
  if (!pagefind) pagefind = await loadIndex(rootUrl, { excerptLength: 24, language });
  return pagefind;
}

// The languages the site's index holds, the one searched chosen; another is searched by loading
// the page again with it (Pagefind searches one language's index per page).
function offerLanguages(index) {
  const entries = Object.entries(index.languages);
  langSelect.replaceChildren(...entries.map(([tag, count]) => {
    const option = document.createElement("option");
    option.value = tag;
    option.textContent = `${tag} (${count})`;
    return option;
  }));
  langSelect.value = index.language;
  langSelect.disabled = entries.length < 2;
  langSelect.addEventListener("change", () => {
    const url = new URL(window.location.href);
    url.searchParams.set("q", input.value);
    url.searchParams.set("lang", langSelect.value);
    window.location.assign(url);
  });
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

// -- "did you mean": the nearest words the corpus holds (words.txt, most frequent first) ------
let words = null;

// Optimal string alignment distance (Levenshtein with transpositions), stopping above `most`.
function distance(a, b, most) {
  if (Math.abs(a.length - b.length) > most) return most + 1;
  let prev2 = null, prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost);
      if (prev2 && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2] + 1);
      row.push(d);
      best = Math.min(best, d);
    }
    if (best > most) return most + 1;
    [prev2, prev] = [prev, row];
  }
  return prev[b.length];
}

// Each query word the corpus does not hold, replaced by its nearest held word (ties: the more
// frequent); null when no word is near enough.
async function suggestion(query) {
  if (!words) {
    const response = await fetch(new URL("words.txt", rootUrl), { cache: "no-cache" });
    if (!response.ok) return null;
    const held = (await response.text()).split("\n").filter(Boolean);
    words = { list: held, held: new Set(held) };
  }
  let changed = false;
  const out = query.trim().toLowerCase().split(/\s+/).map((word) => {
    if (words.held.has(word) || word.length < 3) return word;
    const most = word.length <= 4 ? 1 : 2;
    let best = null, bestD = most + 1;
    for (const w of words.list) {
      const d = distance(word, w, bestD - 1);
      if (d < bestD) { best = w; bestD = d; if (d === 1) break; }
    }
    if (best) { changed = true; return best; }
    return word;
  });
  return changed ? out.join(" ") : null;
}

async function showSuggestion(query, folder, cls) {
  const better = await suggestion(query).catch(() => null);
  if (!better) return;
  const url = new URL(window.location.href);
  url.searchParams.set("q", better);
  const link = document.createElement("a");
  link.href = url.pathname + url.search;
  link.className = "suggestion";
  link.textContent = better;
  link.addEventListener("click", (event) => {
    event.preventDefault();
    input.value = better;
    window.history.replaceState(null, "", url);
    run(better, folder, cls);
  });
  status.append(" Did you mean ", link, "?");
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
  if (search.results.length === 0) await showSuggestion(query, folder, cls);
}

async function start() {
  const params = new URLSearchParams(window.location.search);
  input.value = params.get("q") || "";
  choose(folderSelect, params.get("folder"));
  choose(classSelect, params.get("class"));
  try {
    offerLanguages(await load(params.get("lang") || ""));
  } catch {
    status.textContent = "The search index could not be loaded (was the site built with Pagefind?).";
    return;
  }
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const url = new URL(window.location.href);
    url.searchParams.set("q", input.value);
    url.searchParams.set("folder", folderSelect.value);
    url.searchParams.set("class", classSelect.value);
    url.searchParams.set("lang", langSelect.value);
    window.history.replaceState(null, "", url);
    run(input.value, folderSelect.value, classSelect.value);
  });
  await run(input.value, folderSelect.value, classSelect.value);
}

start();
