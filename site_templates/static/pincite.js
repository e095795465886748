// pincite site: span highlighting, select-to-cite and the drift banner.
// Offsets are Unicode code points of the document text (as in `pincite cite --chars`);
// the browser counts UTF-16 units, so every conversion happens here, at the edge.
"use strict";

const Pincite = (() => {
  // -- code points and paths ------------------------------------------------------------
  function codePoints(s) {
    let n = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) i++;
      }
      n++;
    }
    return n;
  }

  // Python's urllib.parse.quote(path, safe="/").
  function quotePath(path) {
    return encodeURIComponent(path)
      .replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase())
      .replace(/%2F/g, "/");
  }

  // indexer.citation.encode_path: the characters that would break the text form.
  const ENCODE = new Set(["%", "@", "#", " ", "(", ")", "<", ">", "[", "]", '"', "'", "`"]);
  function encodePath(path) {
    let out = "";
    for (const ch of path) {
      const cp = ch.codePointAt(0);
      if (ENCODE.has(ch) || cp < 0x20 || cp === 0x7f) {
        for (const b of new TextEncoder().encode(ch)) out += "%" + b.toString(16).toUpperCase().padStart(2, "0");
      } else {
        out += ch;
      }
    }
    return out;
  }

  // FNV-1a 64 of the UTF-8 bytes: the name of a path's history file (site_render.history_name).
  function historyName(path) {
    let h = 0xcbf29ce484222325n;
    for (const b of new TextEncoder().encode(path)) {
      h ^= BigInt(b);
      h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
    }
    return h.toString(16).padStart(16, "0");
  }

  // indexer.site.render.site_page: where the page of a repository path lives under `folder`.
  // A name past the file system's 255 bytes (or a path past 1024) becomes the path's hash.
  function sitePage(folder, path) {
    const parts = path.split("/");
    const sizes = parts.map((part) => new TextEncoder().encode(part).length);
    sizes[sizes.length - 1] += ".html".length;
    const total = sizes.reduce((a, b) => a + b, 0) + parts.length + folder.length;
    if (Math.max(...sizes) > 255 || total > 1024) return `${folder}/~long/${historyName(path)}.html`;
    return `${folder}/${quotePath(path)}.html`;
  }

  // -- selectors -------------------------------------------------------------------------
  function parseSelector(hash) {
    const s = decodeURIComponent((hash || "").replace(/^#/, ""));
    let m;
    if ((m = /^L(\d+)(?:-L(\d+))?$/.exec(s))) return { kind: "lines", a: +m[1], b: m[2] ? +m[2] : +m[1], text: s };
    if ((m = /^c(\d+)-(\d+)$/.exec(s))) return { kind: "chars", a: +m[1], b: +m[2], text: s };
    if ((m = /^L(\d+)C(\d+)-L(\d+)C(\d+)$/.exec(s)))
      return { kind: "linecol", l1: +m[1], c1: +m[2], l2: +m[3], c2: +m[4], text: s };
    return null;
  }

  // Mirror of indexer.drift.relocate_lines: carry lines first..last through zero-context hunks.
  function relocateLines(first, last, hunks) {
    let shift = 0, delta = 0, touched = false;
    const sorted = hunks.slice().sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    for (const [os, oc, , nc] of sorted) {
      let before, touches;
      if (oc === 0) {
        before = os < first;
        touches = first <= os && os < last;
      } else {
        const oldLast = os + oc - 1;
        before = oldLast < first;
        touches = os <= last && oldLast >= first;
      }
      if (before) shift += nc - oc;
      else if (touches) { touched = true; delta += nc - oc; }
    }
    if (!touched) return ["verified", first + shift, last + shift];
    const nf = first + shift;
    return ["drifted", nf, Math.max(nf - 1, last + shift + delta)];
  }

  // -- the source view -------------------------------------------------------------------
  const src = () => document.getElementById("src");
  // Every child of the source view is a line, <li id=L12> (indexer/site/render.py).
  const lineEls = () => Array.from(src().children);

  // The line numbers a reader follows (with the keyboard too) to put a line in the address and cite
  // it. The page carries bare lines (CSS draws their numbers): the links are made here, after the
  // line's passage and page marks, where the number is drawn.
  function linkLineNumbers() {
    for (const line of lineEls()) {
      if (line.querySelector(":scope > a:not(.pg)")) continue; // a page written with its links (render 2)
      const link = document.createElement("a");
      link.href = "#" + line.id;
      link.setAttribute("aria-label", "line " + line.id.slice(1));
      let after = null;
      for (const child of line.childNodes) {
        if (child.nodeType !== 1 || child.textContent !== "") break;
        after = child;
      }
      line.insertBefore(link, after ? after.nextSibling : line.firstChild);
    }
  }

  // Code-point offset where each line starts (index 0 is line 1).
  function lineStarts() {
    const starts = [];
    let at = 0;
    for (const el of lineEls()) {
      starts.push(at);
      at += codePoints(el.textContent);
    }
    starts.push(at);
    return starts;
  }

  function charSpanOf(sel) {
    if (sel.kind === "chars") return [sel.a, sel.b];
    if (sel.kind === "linecol") {
      const st = lineStarts();
      return [st[sel.l1 - 1] + sel.c1 - 1, st[sel.l2 - 1] + sel.c2 - 1];
    }
    return null;
  }

  function lineRangeOf(sel) {
    if (sel.kind === "lines") return [sel.a, sel.b];
    if (sel.kind === "linecol") return [sel.l1, sel.l2];
    const st = lineStarts();
    const lineOf = (off) => { let n = 0; while (n + 1 < st.length - 1 && st[n + 1] <= off) n++; return n + 1; };
    return [lineOf(sel.a), lineOf(Math.max(sel.a, sel.b - 1))];
  }

  // Wrap code points [a, b) of the source text in <mark class="cited">, text node by text node.
  function markChars(a, b) {
    const walker = document.createTreeWalker(src(), NodeFilter.SHOW_TEXT);
    const pieces = [];
    let at = 0, node;
    while ((node = walker.nextNode())) {
      const s = node.data;
      let i = 0, startUnit = -1, endUnit = -1;
      while (i <= s.length) {
        if (at === a && startUnit < 0) startUnit = i;
        if (at === b) { endUnit = i; break; }
        if (i === s.length) break;
        const c = s.charCodeAt(i);
        i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1;
        at++;
      }
      if (startUnit < 0 && at > a) startUnit = 0;
      if (startUnit >= 0) pieces.push([node, startUnit, endUnit < 0 ? s.length : endUnit]);
      if (endUnit >= 0 || at >= b) break;
    }
    let first = null;
    for (const [n, x, y] of pieces) {
      if (y <= x) continue;
      const range = document.createRange();
      range.setStart(n, x);
      range.setEnd(n, y);
      const mark = document.createElement("mark");
      mark.className = "cited";
      range.surroundContents(mark);
      first = first || mark;
    }
    return first;
  }

  function highlight(sel) {
    document.querySelectorAll(".hl").forEach((el) => el.classList.remove("hl"));
    document.querySelectorAll("mark.cited").forEach((m) => m.replaceWith(...m.childNodes));
    if (src()) src().normalize();
    if (!sel || !src()) return;
    const [first, last] = lineRangeOf(sel);
    for (let n = first; n <= last; n++) {
      const el = document.getElementById("L" + n);
      if (el) el.classList.add("hl");
    }
    document.querySelectorAll("[data-line-start]").forEach((el) => {
      const a = +el.dataset.lineStart, b = +el.dataset.lineEnd;
      if (a <= last && b >= first && !el.querySelector("[data-line-start]")) el.classList.add("hl");
    });
    const span = charSpanOf(sel);
    let target = document.getElementById("L" + first);
    if (span) target = markChars(span[0], span[1]) || target;
    if (target) target.scrollIntoView({ block: "center" });
  }

  // -- selection → citation ----------------------------------------------------------------
  function offsetOf(node, offset) {
    const range = document.createRange();
    range.setStart(src(), 0);
    range.setEnd(node, offset);
    return codePoints(range.toString());
  }

  // -- rendered selection → source code points -----------------------------------------------
  // A rendered block carries its source lines. Its rendered text is aligned with that source
  // character by character, the Markdown markup between them skipped (emphasis and code marks,
  // a link's brackets and destination, entities, a line break); a selection then maps to the
  // exact code points of the source, widened to keep the markup it opens or closes whole.
  // When the alignment is not exact, the block's lines are cited and the panel says so.
  const MARKS = new Set(["*", "_", "`", "~"]);
  const isSpace = (c) => c === " " || c === "\n" || c === "\t" || c === "\r" || c === "\u00a0";

  function blockSource(block) {
    const starts = lineStarts();
    const points = Array.from(src().textContent);
    const a = +block.dataset.lineStart, b = +block.dataset.lineEnd;
    const from = starts[a - 1], to = starts[Math.min(b, starts.length - 1)];
    return { from, points: points.slice(from, to) };
  }

  // For each code point of `rendered`, its index in `source` (-1 when it has none).
  function alignRendered(rendered, source) {
    const map = [];
    let j = 0;
    for (const c of rendered) {
      let k = j;
      while (k < source.length && source[k] !== c && !(isSpace(c) && isSpace(source[k]))) k++;
      if (k === source.length) { map.push(-1); continue; }
      map.push(k);
      j = k + 1;
    }
    return map;
  }

  // Is source[a, b) markup only: delimiters, a link's "](destination)", an entity, spaces?
  function markupOnly(source, a, b) {
    const run = source.slice(a, b).join("");
    return /^(?:[*_`~\s<>!\[\]\\]|\]\([^)]*\)|\]\[[^\]]*\]|&[#\w]+;)*$/.test(run);
  }

  function renderedOffset(block, node, offset) {
    const range = document.createRange();
    range.setStart(block, 0);
    range.setEnd(node, offset);
    return codePoints(range.toString());
  }

  function exactRenderedSpan(r) {
    const blockOf = (node) => (node.nodeType === 1 ? node : node.parentElement).closest("[data-line-start]");
    const block = blockOf(r.startContainer);
    if (!block || block !== blockOf(r.endContainer)) return null;
    const rendered = Array.from(block.textContent);
    const { from, points } = blockSource(block);
    const map = alignRendered(rendered, points);
    let start = renderedOffset(block, r.startContainer, r.startOffset);
    let end = renderedOffset(block, r.endContainer, r.endOffset);
    while (start < end && isSpace(rendered[start])) start++;
    while (end > start && isSpace(rendered[end - 1])) end--;
    if (end <= start) return null;
    for (let i = start; i < end; i++) {
      if (map[i] < 0) return null;
      // Between two selected characters the source may hold markup only, never other text.
      if (i > start && map[i] - map[i - 1] > 1 && !markupOnly(points, map[i - 1] + 1, map[i])) return null;
    }
    return widenToMarkup(points, from, from + map[start], from + map[end - 1] + 1);
  }

  // Keep emphasis, code and link markup whole: an opening mark whose closing one the span holds
  // (or the reverse) is taken in, and so is a link's "](destination)" when its whole text is selected.
  function widenToMarkup(points, from, a, b) {
    let i = a - from, j = b - from;
    // Runs of one mark ("**", "`") pair up like brackets; an unpaired run is closed by the same run
    // right after the span, or opened by one right before it.
    const unpaired = () => {
      const stack = [];
      for (let k = i; k < j; k++) {
        if (!MARKS.has(points[k])) continue;
        let n = 1;
        while (k + n < j && points[k + n] === points[k]) n++;
        const run = points[k].repeat(n);
        if (stack.length && stack[stack.length - 1] === run) stack.pop();
        else stack.push(run);
        k += n - 1;
      }
      return stack;
    };
    const runAt = (k, run) => points.slice(k, k + run.length).join("") === run;
    for (let guard = 0; guard < 8; guard++) {
      let changed = false;
      for (const run of unpaired().reverse()) {
        if (runAt(j, run)) { j += run.length; changed = true; }
        else if (i >= run.length && runAt(i - run.length, run)) { i -= run.length; changed = true; }
        break;
      }
      const text = points.slice(i, j).join("");
      const opens = (text.match(/\[/g) || []).length, closes = (text.match(/\]/g) || []).length;
      if (opens > closes) {
        const rest = points.slice(j).join("");
        const m = /^\](?:\([^)\n]*\)|\[[^\]\n]*\])?/.exec(rest); // the link's whole text is selected
        if (m) { j += Array.from(m[0]).length; changed = true; }
      } else if (closes > opens && i > 0 && points[i - 1] === "[") { i--; changed = true; }
      if (!changed) break;
    }
    return { kind: "chars", a: from + i, b: from + j };
  }

  // The selection's range with its ends moved into the first and last selected text of a block
  // (a drag or a triple click often starts or ends between two blocks).
  function tightRange(r) {
    const walker = document.createTreeWalker(r.commonAncestorContainer.nodeType === 1
      ? r.commonAncestorContainer : r.commonAncestorContainer.parentNode, NodeFilter.SHOW_TEXT);
    let first = null, last = null, node;
    while ((node = walker.nextNode())) {
      if (!r.intersectsNode(node) || !node.parentElement.closest("[data-line-start]")) continue;
      const a = node === r.startContainer ? r.startOffset : 0;
      const b = node === r.endContainer ? r.endOffset : node.data.length;
      if (b <= a || !node.data.slice(a, b).trim()) continue;
      if (!first) first = [node, a];
      last = [node, b];
    }
    if (!first) return r;
    const tight = document.createRange();
    tight.setStart(...first);
    tight.setEnd(...last);
    return tight;
  }

  // The selection as a span: code points in the source view; in the rendered view, the exact
  // code points of the source the selection shows, or the lines of the blocks it touches.
  function selectedSpan() {
    const s = window.getSelection();
    if (!s || s.rangeCount === 0 || s.isCollapsed || !src()) return null;
    const r = s.getRangeAt(0);
    const rendered = document.getElementById("rendered");
    if (rendered && !rendered.hidden && rendered.contains(r.commonAncestorContainer)) {
      const block = (node) => (node.nodeType === 1 ? node : node.parentElement).closest("[data-line-start]");
      const tight = tightRange(r);
      const a = block(tight.startContainer), b = block(tight.endContainer);
      if (!a || !b) return null;
      const exact = exactRenderedSpan(tight);
      if (exact) return exact;
      return { kind: "lines", a: +a.dataset.lineStart, b: Math.max(+a.dataset.lineStart, +b.dataset.lineEnd),
        note: "The selection could not be matched to the source exactly: the cited span is the whole " +
          "lines of the selected blocks." };
    }
    if (!src().contains(r.startContainer) && !src().contains(r.endContainer)) return null;
    const total = codePoints(src().textContent);
    const a = src().contains(r.startContainer) ? offsetOf(r.startContainer, r.startOffset) : 0;
    const b = src().contains(r.endContainer) ? offsetOf(r.endContainer, r.endOffset) : total;
    return b > a ? { kind: "chars", a, b } : null;
  }

  function siteBase(main) {
    const configured = main.dataset.siteUrl;
    if (configured) return configured.replace(/\/+$/, "") + "/";
    return new URL(main.dataset.root || "./", window.location.href).href;
  }

  // The strings `pincite cite --chars A-B` (or --lines) prints: text form, permalink, and
  // the Markdown snippet of indexer.cli_citations.markdown_snippet, character for character.
  function citationStrings(main, commit, path, span) {
    const points = Array.from(src().textContent);
    const starts = lineStarts();
    let selector, quote, lines;
    if (span.kind === "lines") {
      selector = span.a === span.b ? `L${span.a}` : `L${span.a}-L${span.b}`;
      const end = starts[span.b] - (points[starts[span.b] - 1] === "\n" ? 1 : 0);
      quote = points.slice(starts[span.a - 1], end).join("");
      lines = [span.a, span.b];
    } else {
      selector = `c${span.a}-${span.b}`;
      quote = points.slice(span.a, span.b).join("");
      lines = lineRangeOf(span);
    }
    // A PDF or HTML page's offsets count its extractor's text: the citation names that identity.
    const token = main.dataset.identity;
    const text = `${encodePath(path)}@${commit}#${selector}${token ? `;x=${token}` : ""}`;
    const permalink = `${siteBase(main)}v/${main.dataset.blob}.html?commit=${commit}&path=${quotePath(path)}` +
      `${token ? `&x=${token}` : ""}#${selector}`;
    const quoted = quote.replace(/\n+$/, "").split("\n").map((l) => (l ? "> " + l : ">")).join("\n");
    const label = lines[0] === lines[1] ? `${path}, line ${lines[0]}` : `${path}, lines ${lines[0]}-${lines[1]}`;
    const markdown = `${quoted}\n\n— [${label}](${permalink})\n`;
    return { text, permalink, markdown, quote };
  }

  function pageCommitAndPath(main) {
    if (main.dataset.kind === "document") return [main.dataset.commit, main.dataset.path];
    const q = new URLSearchParams(window.location.search);
    return [q.get("commit"), q.get("path") || main.dataset.knownPath];
  }

  // Returns offer(sel): the span in the address (#L12 after following a line number, with the
  // keyboard too) can be cited without selecting anything.
  // The panel that shows a selection's citation: made here, since it is of use only with this script.
  const CITE_PANEL = `<button type="button" id="cite-open" class="cite-open">Cite: copy permalink</button>
  <div id="cite-details" class="cite-details" hidden>
    <label for="cite-permalink">Permalink</label>
    <input id="cite-permalink" readonly>
    <label for="cite-text">Text form (path@commit#span)</label>
    <input id="cite-text" readonly>
    <label for="cite-markdown">Markdown with the quote</label>
    <textarea id="cite-markdown" rows="4" readonly></textarea>
    <div class="cite-actions">
      <button type="button" data-copy="cite-permalink">Copy permalink</button>
      <button type="button" data-copy="cite-text">Copy text form</button>
      <button type="button" data-copy="cite-markdown">Copy Markdown</button>
      <button type="button" id="cite-close">Close</button>
    </div>
    <p id="cite-status" class="cite-status" role="status"></p>
  </div>`;

  function citePanel(main) {
    const made = document.getElementById("cite");
    if (made) return made; // a page from a template that still includes the panel
    const aside = el("aside", { id: "cite", class: "cite", "aria-label": "Cite the selection" });
    aside.hidden = true;
    aside.innerHTML = CITE_PANEL;
    main.append(aside);
    return aside;
  }

  function setupCite(main) {
    if (!src()) return () => {};
    const aside = citePanel(main);
    const details = document.getElementById("cite-details");
    const status = document.getElementById("cite-status");
    let current = null;
    let offered = null;
    document.addEventListener("selectionchange", () => {
      const span = selectedSpan();
      if (span) { current = span; aside.hidden = false; }
      else if (details.hidden) { current = offered; aside.hidden = !offered; }
    });
    document.getElementById("cite-open").addEventListener("click", () => {
      if (!current) return;
      const [commit, path] = pageCommitAndPath(main);
      if (main.dataset.unresolvable === "1") {
        status.textContent = "This permalink does not resolve: cite from the document page instead.";
        details.hidden = false;
        return;
      }
      if (!commit || !/^[0-9a-f]{40}$/.test(commit)) {
        status.textContent = "This page was opened without ?commit=…: cite from the document page instead.";
        details.hidden = false;
        return;
      }
      const c = citationStrings(main, commit, path, current);
      document.getElementById("cite-permalink").value = c.permalink;
      document.getElementById("cite-text").value = c.text;
      document.getElementById("cite-markdown").value = c.markdown;
      details.hidden = false;
      const note = current.note ? current.note + " " : "";
      status.textContent = note;
      copy(c.permalink, status, note + "Permalink copied.");
    });
    document.getElementById("cite-close").addEventListener("click", () => {
      details.hidden = true;
      aside.hidden = true;
    });
    aside.querySelectorAll("[data-copy]").forEach((button) =>
      button.addEventListener("click", () => {
        const field = document.getElementById(button.dataset.copy);
        copy(field.value, status, "Copied.");
      }));
    return (sel) => {
      offered = null;
      if (sel && sel.kind === "lines") offered = { kind: "lines", a: sel.a, b: sel.b };
      else if (sel) { const [a, b] = charSpanOf(sel); offered = { kind: "chars", a, b }; }
      if (details.hidden) { current = offered; aside.hidden = !offered; }
    };
  }

  function copy(value, status, done) {
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(value).then(() => { status.textContent = done; },
        () => { status.textContent = "Select the text above and copy it."; });
    } else {
      status.textContent = "Select the text above and copy it.";
    }
  }

  // -- recovery: where did the cited text go? (indexer.recovery's exact places, in the browser) ---
  // The cited text is searched, exactly after normalization, in the built commit's text of the
  // path (its document page holds it) and in the other documents Pagefind names as holding its
  // words. Only exact places are reported: a fuzzy match is never shown as where the text went.
  const MAX_PLACES = 10;
  const MAX_CANDIDATES = 12;
  let pagefindModule = null;

  async function headDocument(root, path) {
    const response = await fetch(`${root}${sitePage("doc", path)}`, { cache: "no-cache" });
    if (!response.ok) return null;
    const doc = new DOMParser().parseFromString(await response.text(), "text/html");
    const text = doc.getElementById("src"), info = doc.getElementById("content");
    return text && info ? { path, text: text.textContent, blob: info.dataset.blob } : null;
  }

  async function candidatePaths(root, words) {
    const base = new URL(root || "./", window.location.href);
    if (!pagefindModule) {
      if (typeof PinciteSearchIndex === "undefined") throw new Error("static/search-index.js is not loaded");
      pagefindModule = await PinciteSearchIndex.load(base);
    }
    let found = await pagefindModule.search(words.slice(0, 6).join(" "));
    // Too many documents hold the longest words: every further word narrows the search.
    if (found.results.length > MAX_CANDIDATES && words.length > 6) found = await pagefindModule.search(words.join(" "));
    const data = await Promise.all(found.results.slice(0, MAX_CANDIDATES).map((r) => r.data()));
    return { paths: data.map((d) => d.meta && d.meta.path).filter(Boolean), more: found.results.length > MAX_CANDIDATES };
  }

  // The text the cited span holds on this version page (the search key when a citation has no quote).
  function citedText(sel) {
    const points = Array.from(src().textContent);
    if (sel.kind === "lines") {
      const starts = lineStarts();
      return points.slice(starts[sel.a - 1], starts[Math.min(sel.b, starts.length - 1)]).join("");
    }
    const [a, b] = charSpanOf(sel);
    return points.slice(a, b).join("");
  }

  async function findCitedText(main, target, sel) {
    const found = { places: [], gaps: [] };
    if (typeof PinciteQuote === "undefined") {
      found.gaps.push("this page's template does not load static/quote.js, so the text was not searched for");
      return found;
    }
    const first = target && target.path ? [target.path] : [];
    return findText(main.dataset.root, PinciteQuote.normalizeQuote(citedText(sel)), first, sel.kind);
  }

  // Exact places of the normalized text `wanted` at the site's HEAD: in the documents `paths`,
  // then in those Pagefind names; `gaps` says what could not be compared.
  async function findText(root, wanted, paths, kind) {
    const found = { places: [], gaps: [] };
    if (!wanted) return found;
    paths = paths.slice();
    const words = PinciteQuote.searchWords(wanted, 10);
    if (words.length === 0) found.gaps.push("the cited text has no word long enough to look up in other documents");
    else {
      try {
        const candidates = await candidatePaths(root, words);
        for (const p of candidates.paths) if (!paths.includes(p)) paths.push(p);
        if (candidates.more) found.gaps.push(`more than ${MAX_CANDIDATES} documents hold its words; the first were compared`);
      } catch (err) {
        found.gaps.push("the site's search index could not be read, so other documents were not compared");
      }
    }
    const docs = await Promise.all(paths.map((p) => headDocument(root, p).catch(() => null)));
    docs.forEach((doc, i) => {
      if (!doc) { found.gaps.push(`the latest text of ${paths[i]} could not be read`); return; }
      for (const [start, end] of PinciteQuote.quotePlaces(wanted, doc.text, MAX_PLACES)) {
        const selector = PinciteQuote.spanSelector(doc.text, start, end, kind);
        found.places.push({ path: doc.path, blob: doc.blob, selector });
      }
    });
    return found;
  }

  // -- the drift banner -----------------------------------------------------------------------
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    for (const c of children) node.append(c);
    return node;
  }

  function versionHref(main, blob, commit, path, selector) {
    return `${main.dataset.root}v/${blob}.html?commit=${commit}&path=${quotePath(path)}#${selector}`;
  }

  function shiftedSelector(sel, lineShift, charShift) {
    if (sel.kind === "lines") {
      const a = sel.a + lineShift, b = sel.b + lineShift;
      return a === b ? `L${a}` : `L${a}-L${b}`;
    }
    if (sel.kind === "linecol") return `L${sel.l1 + lineShift}C${sel.c1}-L${sel.l2 + lineShift}C${sel.c2}`;
    if (charShift === null) return null;
    return `c${sel.a + charShift}-${sel.b + charShift}`;
  }

  // Code points that hunks wholly before line `first` add (or remove) ahead of the span.
  function charShiftBefore(first, hunks) {
    let shift = 0;
    for (const [os, oc, , , lines] of hunks) {
      const before = oc === 0 ? os < first : os + oc - 1 < first;
      if (!before) continue;
      for (const line of lines) {
        if (line.startsWith("\\")) {
          if (!line.startsWith("\\ No newline")) return null; // truncated hunk: cannot count
          continue;
        }
        const n = codePoints(line) - 1 + 1; // the line minus its +/- sign, plus its "\n"
        if (line[0] === "+") shift += n;
        else if (line[0] === "-") shift -= n;
      }
    }
    return shift;
  }

  function decide(entry, sel, lines) {
    const target = entry.target;
    if (!target || target.status === "deleted") return { status: "deleted" };
    if (target.status === "unavailable") return { status: "unavailable", reason: target.reason };
    const [state, nf, nl] = relocateLines(lines[0], lines[1], target.hunks);
    if (state === "drifted") {
      const touching = target.hunks.filter((h) => relocateLines(lines[0], lines[1], [h])[0] === "drifted");
      return { status: "changed", first: nf, last: nl, hunks: touching, path: target.path, blob: target.blob };
    }
    const moved = nf !== lines[0] || target.status === "renamed";
    return {
      status: moved ? "moved" : "unchanged", first: nf, last: nl, path: target.path, blob: target.blob,
      lineShift: nf - lines[0], charShift: charShiftBefore(lines[0], target.hunks),
    };
  }

  // Mirror of indexer.citations.drift._first_change over the history files' steps: carry the cited
  // lines commit by commit (following renames into the new path's entry) and return the first step
  // whose own diff touched them or that deleted the document, and the first rename on the way.
  async function changedBy(root, record, commits, from, lines) {
    let [first, last] = lines;
    let renamed = null;
    for (let hops = 0; record && hops < 50; hops++) {
      let next = null;
      for (const step of record.steps || []) {
        if (commits.indexOf(step.commit) <= from) continue;
        if (step.kind === "deleted") return { step, renamed };
        if (!step.hunks) return { step: null, renamed }; // a text was not indexed: cannot say
        const [state, a, b] = relocateLines(first, last, step.hunks);
        if (state === "drifted") return { step, renamed };
        [first, last] = [a, b];
        if (step.kind === "renamed") { next = step; break; }
      }
      if (!next) return { step: null, renamed };
      renamed = renamed || next;
      from = commits.indexOf(next.commit);
      record = await historyRecord(root, next.path);
    }
    return { step: null, renamed };
  }

  async function historyRecord(root, path) {
    const response = await fetch(`${root}history/${historyName(path).slice(0, 2)}.json`, { cache: "no-cache" });
    const shard = response.ok ? await response.json() : null;
    const record = shard && shard.paths ? shard.paths[path] : null;
    return record && record.path === path ? record : null;
  }

  // "abc123456789 (2024-05-01): subject", the way `pincite verify` names a commit.
  function commitLine(step) {
    const when = step.time ? new Date(step.time * 1000).toISOString().slice(0, 10) : "";
    return [el("code", { title: step.commit }, step.commit.slice(0, 12)),
      `${when ? ` (${when})` : ""}${step.subject ? `: ${step.subject}` : ""}`];
  }

  // Writes the places the exact search found into the banner; else returns the note to show.
  function showRecovery(main, result, head, title, body) {
    const banner = document.getElementById("banner");
    let found = result.recovery || { places: [], gaps: ["the cited text was not searched for"] };
    const place = (p) => el("a", { href: versionHref(main, p.blob, head, p.path, p.selector) },
      `${p.path}@${head.slice(0, 12)}#${p.selector}`);
    const gaps = found.gaps.length ? ` Not every document was compared: ${found.gaps.join("; ")}.` : "";
    banner.dataset.places = String(found.places.length);
    if (result.status === "changed" && result.path) {
      // The cited document still exists: only places inside it are where the citation went
      // (as `pincite check` decides); the same words elsewhere are listed, never suggested.
      const own = found.places.filter((p) => p.path === result.path);
      if (!own.length && found.places.length) {
        banner.dataset.recovery = "other_document";
        title.append(`The cited text changed; its words stand only in other documents, and ${result.path} still exists.`);
        body.append("Not a move; a person decides whether one of these is meant: ");
        found.places.forEach((p, i) => body.append(i ? ", " : "", place(p)));
        body.append("." + gaps);
        return null;
      }
      found = { places: own, gaps: found.gaps };
    }
    if (found.places.length === 1 && found.gaps.length) {
      // One place, but not every document was compared: where it stands, never "moved".
      banner.dataset.recovery = "unconfirmed";
      title.append("The cited text stands at ", place(found.places[0]), "; it may stand elsewhere too.");
      body.append("Check before re-pinning (an exact match, not a verified move)." + gaps);
      return null;
    }
    if (found.places.length === 1) {
      const p = found.places[0];
      const text = `${encodePath(p.path)}@${head}#${p.selector}`;
      banner.dataset.recovery = "moved";
      banner.dataset.suggestion = text;
      title.append("The cited text moved: now at ", place(p), ".");
      body.append("Suggested citation (an exact match, whitespace, quotes and dashes folded; " +
        "nothing is re-pinned until you change it): ", el("code", {}, text), "." + gaps);
      return null;
    }
    if (found.places.length > 1) {
      banner.dataset.recovery = "ambiguous";
      title.append(`The cited text now stands at ${found.places.length} places; a person decides which is meant.`);
      found.places.forEach((p, i) => body.append(i ? ", " : "", place(p)));
      body.append("." + gaps);
      return null;
    }
    banner.dataset.recovery = "none";
    return el("span", { class: "banner-recovery" },
      found.gaps.length ? gaps.trim() : "The cited text stands nowhere else in the latest build, letter for letter.");
  }

  function showBanner(main, result, sel, headInfo) {
    const banner = document.getElementById("banner");
    for (const key of ["recovery", "suggestion", "places"]) delete banner.dataset[key];
    banner.dataset.status = result.status;
    banner.className = `banner banner-${result.status}`;
    const title = el("p", { class: "banner-title" });
    const body = el("p", { class: "banner-body" });
    const head = headInfo.head;
    const headShort = head.slice(0, 12);
    const [citedCommit, citedPath] = pageCommitAndPath(main);
    const cited = el("p", { class: "banner-cited" }, "Cited: ",
      el("code", {}, `${citedPath}@${(citedCommit || "?").slice(0, 12)}#${sel.text}`));
    delete banner.dataset.changedBy;
    banner.classList.remove("has-diff");
    banner.querySelectorAll(".banner-diff").forEach((n) => n.remove());
    const by = result.changedBy;
    if (by) banner.dataset.changedBy = by.commit;
    const byLine = (verb) => (by ? el("p", { class: "banner-by" }, `${verb} by `, ...commitLine(by)) : null);
    let byPara = null;
    if (result.first !== undefined) { banner.dataset.newFirst = result.first; banner.dataset.newLast = result.last; }
    if (result.path) banner.dataset.newPath = result.path;
    if (result.status === "unchanged" || result.status === "moved") {
      const selector = shiftedSelector(sel, result.lineShift, result.charShift) ||
        (result.first === result.last ? `L${result.first}` : `L${result.first}-L${result.last}`);
      const link = el("a", { href: versionHref(main, result.blob, head, result.path, selector) },
        `${result.path}@${headShort}#${selector}`);
      if (result.status === "unchanged") {
        title.append("Unchanged in the latest build.");
        body.append("The cited text is the same at ", el("code", {}, headShort), ": ", link);
      } else {
        title.append(`Unchanged, but moved to lines ${result.first}–${result.last}` +
          (result.path !== pageCommitAndPath(main)[1] ? ` of ${result.path}.` : "."));
        body.append("Same text at ", el("code", {}, headShort), ": ", link);
        if (by) body.append(" Renamed by ", ...commitLine(by), ".");
      }
    } else if (result.status === "changed" || result.status === "deleted") {
      const note = showRecovery(main, result, head, title, body);
      if (note && result.status === "changed") {
        title.append("The cited text changed.");
        const span = result.last >= result.first ? `lines ${result.first}–${result.last}` : `near line ${result.first}`;
        body.append(`Now ${span} of `,
          el("a", { href: versionHref(main, result.blob, head, result.path,
            result.last >= result.first ? `L${result.first}-L${result.last}` : `L${Math.max(1, result.first)}`) },
          result.path), " at ", el("code", {}, headShort), ".");
      } else if (note) {
        title.append("Deleted in the latest build.");
        body.append("Below is the text as cited, from ", el("code", {}, (citedCommit || "").slice(0, 12)), ". ", note);
      }
      const verb = result.status === "changed" ? "Changed" : "Deleted";
      if (result.status === "changed") {
        const diff = el("pre", { class: "hunk", tabindex: "0", "aria-label": "git's diff of the cited lines" });
        let size = 0;
        for (const [os, oc, ns, nc, lines] of result.hunks) {
          diff.append(el("span", { class: "hunk-head" }, `@@ -${os},${oc} +${ns},${nc} @@\n`));
          for (const line of lines) {
            diff.append(el("span", { class: line[0] === "+" ? "add" : line[0] === "-" ? "del" : "" }, line + "\n"));
          }
          size += 1 + lines.length;
        }
        if (size <= SHORT_DIFF_LINES) {
          // A short diff is shown open, with the commit that made it, beside the verdict (inside
          // the box reserved for the banner on a wide screen).
          bannerText(banner).replaceChildren(cited, title, body, ...(note ? [el("p", { class: "banner-note" }, note)] : []));
          banner.classList.add("has-diff");
          bannerText(banner).after(el("div", { class: "banner-diff" }, ...[byLine(verb), diff].filter(Boolean)));
          return;
        }
        const parts = [cited, title, byLine(verb), body].filter(Boolean);
        // The note goes under "Show the change": the banner keeps the height reserved for it.
        const more = note ? [el("p", {}, note), diff] : [diff];
        bannerText(banner).replaceChildren(...parts, el("details", {}, el("summary", {}, "Show the change"), ...more));
        return;
      }
      if (result.status === "deleted") byPara = byLine(verb);
    } else if (result.status === "unresolvable") {
      title.append("This permalink does not resolve.");
      body.append(result.reason);
    } else {
      title.append("Cannot compare with the latest build.");
      body.append(result.reason || "This version is not in the published history of the path.");
    }
    bannerText(banner).replaceChildren(...[cited, title, byPara, body].filter(Boolean));
  }

  const SHORT_DIFF_LINES = 4; // hunk headers and lines: what fits the banner's reserved height

  // The banner's text (a template of before this version may have put it straight in the banner).
  const bannerText = (banner) => banner.querySelector(".banner-text") || banner;

  // On a narrow or short screen the banner is a bar that keeps the verdict in view over the cited
  // lines; "Details" opens the rest. Its height is kept in --banner-h: a line the address or the
  // script scrolls to stops below the banner, whatever it holds.
  function setupBannerBar() {
    const banner = document.getElementById("banner");
    if (!banner) return;
    const toggle = banner.querySelector(".banner-toggle");
    if (toggle) {
      toggle.addEventListener("click", () => {
        const open = toggle.getAttribute("aria-expanded") !== "true";
        toggle.setAttribute("aria-expanded", open ? "true" : "false");
        toggle.textContent = open ? "Less" : "Details";
        if (open) banner.dataset.open = "1";
        else delete banner.dataset.open;
      });
    }
    const measure = () => {
      const sticky = getComputedStyle(banner).position === "sticky";
      const height = sticky ? banner.getBoundingClientRect().height : 0;
      document.documentElement.style.setProperty("--banner-h", `${Math.ceil(height)}px`);
    };
    if (typeof ResizeObserver !== "undefined") new ResizeObserver(measure).observe(banner);
    measure();
  }

  // A code block or table wider than its box scrolls; the keyboard reaches it only then (a tab
  // stop on every block would be noise). The build marks all of them focusable for pages read
  // without JavaScript.
  function setupScrollers() {
    const boxes = document.querySelectorAll("#rendered pre.code, #rendered .table-wrap");
    if (boxes.length === 0 || typeof ResizeObserver === "undefined") return;
    const check = (box) => {
      if (box.clientWidth === 0) return; // hidden (the other view is shown): decided when it shows
      if (box.scrollWidth > box.clientWidth + 1) box.tabIndex = 0;
      else box.removeAttribute("tabindex");
    };
    const observer = new ResizeObserver((entries) => entries.forEach((e) => check(e.target)));
    boxes.forEach((box) => { observer.observe(box); check(box); });
  }

  // Previous and next versions of the path, beside the link to its history page: the page is
  // immutable, so its neighbours come from the path's history file.
  function versionNav(main, record, commits, path) {
    const nav = document.getElementById("version-nav");
    if (!nav || nav.dataset.done) return;
    const start = (v) => Math.min(...v.ranges.map((r) => commits.indexOf(r[0])));
    const order = Object.entries(record.versions).sort((x, y) => start(x[1]) - start(y[1]));
    const at = order.findIndex(([blob]) => blob === main.dataset.blob);
    if (at < 0) return;
    const link = (n, rel, label) => {
      const [blob, v] = order[n];
      const first = v.ranges[v.ranges.length - 1][0];
      return el("a", { href: versionHref(main, blob, first, path, "L1"), rel }, label);
    };
    if (at > 0) nav.append(" · ", link(at - 1, "prev", "previous version"));
    if (at < order.length - 1) nav.append(" · ", link(at + 1, "next", "next version"));
    nav.dataset.done = "1";
  }

  // Why `commit` did not hold this page's version of `path`, or null when it did.
  function commitMismatch(commits, ranges, commit, path) {
    const at = commits.indexOf(commit);
    if (at < 0) {
      return `Commit ${commit.slice(0, 12)} is not in this site's published history, so this permalink cannot be checked here.`;
    }
    const holds = ranges.some(([first, last]) => {
      const from = commits.indexOf(first);
      const to = last === null ? commits.length - 1 : commits.indexOf(last);
      return from >= 0 && to >= 0 && from <= at && at <= to;
    });
    return holds ? null
      : `At commit ${commit.slice(0, 12)}, ${path} held other text than this page shows: the permalink's commit, path and page do not agree.`;
  }

  // Why the permalink's extractor identity (&x=) is not the one this page's text comes from, or null.
  function identityMismatch(main) {
    const wanted = (new URLSearchParams(window.location.search).get("x") || "").toLowerCase();
    const shown = main.dataset.identity || "";
    if (!wanted || main.dataset.kind !== "version" || wanted.slice(0, shown.length) === shown) return null;
    return `This permalink counts its offsets in the text of extractor identity x=${wanted}, but this page ` +
      `shows the text of x=${shown || "none"} (the site was rebuilt with another extractor version). ` +
      "`pincite resolve` reads the cited text from the index.";
  }

  async function setupBanner(main, sel) {
    const banner = document.getElementById("banner");
    const [commit, path] = pageCommitAndPath(main);
    if (!banner || !path) return;
    if (!sel) sel = { kind: "lines", a: 1, b: 1, text: "L1" };
    const otherIdentity = identityMismatch(main);
    if (otherIdentity) {
      // Fail closed: the permalink's offsets count another text than the one on this page.
      main.dataset.unresolvable = "1";
      showBanner(main, { status: "unresolvable", reason: otherIdentity }, sel, { head: "" });
      return;
    }
    try {
      const root = main.dataset.root;
      const [headInfo, history, line] = await Promise.all([
        fetch(`${root}site.json`, { cache: "no-cache" }).then((r) => r.json()),
        fetch(`${root}history/${historyName(path).slice(0, 2)}.json`, { cache: "no-cache" })
          .then((r) => (r.ok ? r.json() : null)),
        fetch(`${root}commits.json`, { cache: "no-cache" }).then((r) => (r.ok ? r.json() : null)),
      ]);
      const record = history && history.paths ? history.paths[path] : null;
      const entry = record && record.path === path ? record.versions[main.dataset.blob] : null;
      if (entry) versionNav(main, record, line ? line.commits : [], path);
      const mismatch = entry && commit ? commitMismatch(line ? line.commits : [], entry.ranges, commit, path) : null;
      if (mismatch) {
        // Fail closed: the page's text is not what the permalink's commit held at that path.
        main.dataset.unresolvable = "1";
        showBanner(main, { status: "unresolvable", reason: mismatch }, sel, headInfo);
        return;
      }
      if (!entry) {
        showBanner(main, { status: "unavailable",
          reason: `This version is not recorded for ${path} in the published history.` }, sel, headInfo);
        return;
      }
      const result = decide(entry, sel, lineRangeOf(sel));
      // Searched before the banner is drawn: one change of the banner, no layout shift.
      if (result.status === "changed" || result.status === "deleted") {
        result.recovery = await findCitedText(main, entry.target, sel);
      }
      if (result.status !== "unavailable") {
        // The walk starts at the permalink's commit (or where this version last began).
        const commits = line ? line.commits : [];
        const ranges = entry.ranges || [];
        const from = commits.indexOf(commit || (ranges.length ? ranges[ranges.length - 1][0] : ""));
        const walk = await changedBy(root, record, commits, from, lineRangeOf(sel)).catch(() => null);
        if (walk) result.changedBy = result.status === "changed" || result.status === "deleted" ? walk.step : walk.renamed;
      }
      showBanner(main, result, sel, headInfo);
    } catch (err) {
      showBanner(main, { status: "unavailable", reason: "The site's history files could not be read." }, sel,
        { head: "" });
    }
  }

  // -- views -----------------------------------------------------------------------------
  function setupViews(sel) {
    const rendered = document.getElementById("rendered");
    const tabs = document.querySelectorAll('[role="tab"]');
    if (!rendered || tabs.length === 0) return null;
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

  // Words a search result linked with (?hl=...) are marked in the text, which stays exact.
  function highlightTerms() {
    const terms = new URLSearchParams(window.location.search).get("hl");
    if (!terms) return null;
    const words = terms.split(/\s+/).filter((w) => w.length > 1).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    if (words.length === 0) return null;
    const re = new RegExp(words.join("|"), "giu");
    const probe = new RegExp(words.join("|"), "iu");
    let first = null;
    for (const scope of [document.getElementById("rendered"), src()]) {
      if (!scope) continue;
      const walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
      const nodes = [];
      let node;
      while ((node = walker.nextNode())) if (probe.test(node.data)) nodes.push(node);
      for (const n of nodes) {
        const parts = [];
        let last = 0;
        n.data.replace(re, (m, at) => {
          parts.push(document.createTextNode(n.data.slice(last, at)));
          const mark = document.createElement("mark");
          mark.className = "term";
          mark.textContent = m;
          parts.push(mark);
          last = at + m.length;
          return m;
        });
        parts.push(document.createTextNode(n.data.slice(last)));
        n.replaceWith(...parts);
        first = first || scope.querySelector("mark.term");
      }
    }
    return first;
  }

  function start() {
    document.documentElement.classList.add("js");
    const main = document.getElementById("content");
    if (!main || !src()) return;
    linkLineNumbers();
    const sel = parseSelector(window.location.hash);
    const showView = setupViews(sel);
    if (!identityMismatch(main)) highlight(sel);
    const term = highlightTerms();
    if (term && !sel && !window.location.hash) term.scrollIntoView({ block: "center" });
    setupScrollers();
    const offer = setupCite(main);
    offer(sel);
    if (main.dataset.kind === "version") {
      setupBannerBar();
      setupBanner(main, sel);
    }
    window.addEventListener("hashchange", () => {
      const next = parseSelector(window.location.hash);
      // A link inside the page: a span is in the source view, a heading in the rendered one.
      const id = decodeURIComponent(window.location.hash.slice(1));
      const rendered = document.getElementById("rendered");
      if (showView && next) showView("source-view");
      else if (showView && id && rendered && rendered.hidden && rendered.contains(document.getElementById(id))) {
        showView("rendered");
        document.getElementById(id).scrollIntoView();
      }
      if (!identityMismatch(main)) highlight(next);
      offer(next);
      if (main.dataset.kind === "version") setupBanner(main, next);
    });
  }

  return { start, codePoints, quotePath, encodePath, historyName, sitePage, parseSelector, relocateLines, decide,
    changedBy, charShiftBefore, citationStrings, findCitedText, findText, identityMismatch };
})();

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", Pincite.start);
else Pincite.start();
