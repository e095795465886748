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
  const lineEls = () => Array.from(src().children).filter((el) => el.classList.contains("ln"));

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

  // The selection as a span: code points in the source view, or whole lines of the
  // Markdown blocks it touches in the rendered view (those blocks carry their source lines).
  function selectedSpan() {
    const s = window.getSelection();
    if (!s || s.rangeCount === 0 || s.isCollapsed || !src()) return null;
    const r = s.getRangeAt(0);
    const rendered = document.getElementById("rendered");
    if (rendered && !rendered.hidden && rendered.contains(r.commonAncestorContainer)) {
      const block = (node) => (node.nodeType === 1 ? node : node.parentElement).closest("[data-line-start]");
      const a = block(r.startContainer), b = block(r.endContainer);
      if (!a || !b) return null;
      return { kind: "lines", a: +a.dataset.lineStart, b: Math.max(+a.dataset.lineStart, +b.dataset.lineEnd) };
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
    const text = `${encodePath(path)}@${commit}#${selector}`;
    const permalink = `${siteBase(main)}v/${main.dataset.blob}.html?commit=${commit}&path=${quotePath(path)}#${selector}`;
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
  function setupCite(main) {
    const aside = document.getElementById("cite");
    if (!aside || !src()) return () => {};
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
      copy(c.permalink, status, "Permalink copied.");
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

  // -- quote matching: indexer.quote.normalize_for_match, code point for code point ---------------
  // NFC, then typographic quotes and dashes folded, then whitespace runs (Python's str.isspace)
  // folded to one space; each normalized code point remembers the offset it came from.
  const FOLD = new Map([
    ..."\u2018\u2019\u201a\u201b\u2032".split("").map((c) => [c, "'"]),
    ..."\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb".split("").map((c) => [c, '"']),
    ..."\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d".split("").map((c) => [c, "-"]),
  ]);
  const SPACES = new Set(("\t\n\v\f\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005" +
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000").split(""));
  // Code points NFC may merge into the one before them (Python 3.11's unicodedata: a non-zero
  // combining class, or a second half of a canonical composition): quote._starts_segment's complement.
  const NON_STARTERS = (
    "300-34e,350-36f,483-487,591-5bd,5bf,5c1-5c2,5c4-5c5,5c7,610-61a,64b-65f,670,6d6-6dc,6df-6e4," +
    "6e7-6e8,6ea-6ed,711,730-74a,7eb-7f3,7fd,816-819,81b-823,825-827,829-82d,859-85b,898-89f,8ca-8e1," +
    "8e3-8ff,93c,94d,951-954,9bc,9be,9cd,9d7,9fe,a3c,a4d,abc,acd,b3c,b3e,b4d,b56-b57,bbe,bcd,bd7,c3c," +
    "c4d,c55-c56,cbc,cc2,ccd,cd5-cd6,d3b-d3c,d3e,d4d,d57,dca,dcf,ddf,e38-e3a,e48-e4b,eb8-eba,ec8-ecb," +
    "f18-f19,f35,f37,f39,f71-f72,f74,f7a-f7d,f80,f82-f84,f86-f87,fb5,fb7,fc6,102e,1037,1039-103a," +
    "108d,1161-1175,11a8-11c2,135d-135f,1714-1715,1734,17d2,17dd,18a9,1939-193b,1a17-1a18,1a60," +
    "1a75-1a7c,1a7f,1ab0-1abd,1abf-1ace,1b34-1b35,1b44,1b6b-1b73,1baa-1bab,1be6,1bf2-1bf3,1c37," +
    "1cd0-1cd2,1cd4-1ce0,1ce2-1ce8,1ced,1cf4,1cf8-1cf9,1dc0-1dff,20d0-20dc,20e1,20e5-20f0,2cef-2cf1," +
    "2d7f,2de0-2dff,302a-302f,3099-309a,a66f,a674-a67d,a69e-a69f,a6f0-a6f1,a806,a82c,a8c4,a8e0-a8f1," +
    "a92b-a92d,a953,a9b3,a9c0,aab0,aab2-aab4,aab7-aab8,aabe-aabf,aac1,aaf6,abed,fb1e,fe20-fe2f,101fd," +
    "102e0,10376-1037a,10a0d,10a0f,10a38-10a3a,10a3f,10ae5-10ae6,10d24-10d27,10eab-10eac,10f46-10f50," +
    "10f82-10f85,11046,11070,1107f,110b9-110ba,11100-11102,11127,11133-11134,11173,111c0,111ca," +
    "11235-11236,112e9-112ea,1133b-1133c,1133e,1134d,11357,11366-1136c,11370-11374,11442,11446,1145e," +
    "114b0,114ba,114bd,114c2-114c3,115af,115bf-115c0,1163f,116b6-116b7,1172b,11839-1183a,11930," +
    "1193d-1193e,11943,119e0,11a34,11a47,11a99,11c3f,11d42,11d44-11d45,11d97,16af0-16af4,16b30-16b36," +
    "16ff0-16ff1,1bc9e,1d165-1d169,1d16d-1d172,1d17b-1d182,1d185-1d18b,1d1aa-1d1ad,1d242-1d244," +
    "1e000-1e006,1e008-1e018,1e01b-1e021,1e023-1e024,1e026-1e02a,1e130-1e136,1e2ae,1e2ec-1e2ef," +
    "1e8d0-1e8d6,1e944-1e94a"
  );
  let nonStarterRanges = null;
  function isNonStarter(cp) {
    if (!nonStarterRanges) {
      nonStarterRanges = NON_STARTERS.split(",").map((r) => r.split("-").map((h) => parseInt(h, 16)))
        .map(([a, b]) => [a, b === undefined ? a : b]);
    }
    let lo = 0, hi = nonStarterRanges.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const [a, b] = nonStarterRanges[mid];
      if (cp < a) hi = mid - 1;
      else if (cp > b) lo = mid + 1;
      else return true;
    }
    return false;
  }

  // [normalized code points, offset in `text` (code points) of each, then the text's length].
  function normalizePoints(text) {
    const points = Array.from(text);
    let composed = points, origin = null;
    if (text.normalize("NFC") !== text) {
      composed = [];
      origin = [];
      let start = 0;
      for (let i = 1; i <= points.length; i++) {
        if (i < points.length && isNonStarter(points[i].codePointAt(0))) continue;
        for (const ch of points.slice(start, i).join("").normalize("NFC")) { composed.push(ch); origin.push(start); }
        start = i;
      }
    }
    const out = [], offsets = [];
    for (let i = 0; i < composed.length; i++) {
      const ch = FOLD.get(composed[i]) || composed[i];
      if (SPACES.has(ch)) {
        if (i > 0 && SPACES.has(composed[i - 1])) continue;
        out.push(" ");
      } else {
        out.push(ch);
      }
      offsets.push(origin ? origin[i] : i);
    }
    offsets.push(points.length);
    return [out, offsets];
  }

  // The same as a string, with one offset per UTF-16 unit, so String.indexOf can search it.
  function normalizeForMatch(text) {
    const [points, offsets] = normalizePoints(text);
    const units = [];
    points.forEach((ch, i) => { units.push(offsets[i]); if (ch.length === 2) units.push(offsets[i]); });
    units.push(offsets[offsets.length - 1]);
    return [points.join(""), units];
  }

  // indexer.quote.normalize: how a quote is compared (ends stripped of the folded space).
  function normalizeQuote(text) {
    return normalizePoints(text)[0].join("").replace(/^ +| +$/g, "");
  }

  // Every [start, end) (code points) where the normalized `wanted` stands in `text`
  // (indexer.quote.cite_quote and locate_quote: the end is quote._end_offset's).
  function quotePlaces(wanted, text, most) {
    if (!wanted) return [];
    const [norm, offsets] = normalizeForMatch(text);
    const total = offsets[offsets.length - 1];
    const places = [];
    let at = norm.indexOf(wanted);
    while (at !== -1 && places.length < most) {
      const last = offsets[at + wanted.length - 1];
      let end = total;
      for (let k = at + wanted.length; k < offsets.length; k++) if (offsets[k] > last) { end = offsets[k]; break; }
      places.push([offsets[at], end]);
      at = norm.indexOf(wanted, at + 1);
    }
    return places;
  }

  // indexer.resolve.span_citation's selector for a span of `text`, in the cited selector's unit.
  function spanSelector(text, start, end, kind) {
    const starts = [0];
    Array.from(text).forEach((ch, i) => { if (ch === "\n") starts.push(i + 1); });
    const lineOf = (off) => { let n = 0; while (n < starts.length && starts[n] <= off) n++; return n; };
    if (kind === "chars") return `c${start}-${end}`;
    if (kind === "linecol") {
      const l1 = lineOf(start), l2 = lineOf(end);
      return `L${l1}C${start - starts[l1 - 1] + 1}-L${l2}C${end - starts[l2 - 1] + 1}`;
    }
    const a = lineOf(start), b = lineOf(Math.max(start, end - 1));
    return a === b ? `L${a}` : `L${a}-L${b}`;
  }

  // -- recovery: where did the cited text go? (indexer.recovery's exact places, in the browser) ---
  // The cited text is searched, exactly after normalization, in the built commit's text of the
  // path (its document page holds it) and in the other documents Pagefind names as holding its
  // words. Only exact places are reported: a fuzzy match is never shown as where the text went.
  const MAX_PLACES = 10;
  const MAX_CANDIDATES = 12;
  let pagefindModule = null;

  async function headDocument(root, path) {
    const response = await fetch(`${root}doc/${quotePath(path)}.html`, { cache: "no-cache" });
    if (!response.ok) return null;
    const doc = new DOMParser().parseFromString(await response.text(), "text/html");
    const text = doc.getElementById("src"), info = doc.getElementById("content");
    return text && info ? { path, text: text.textContent, blob: info.dataset.blob } : null;
  }

  // Words Pagefind can look up: whole ASCII words (a span may cut its first and last word).
  function searchWords(wanted) {
    const tokens = wanted.split(" ");
    const whole = tokens.length > 2 ? tokens.slice(1, -1) : tokens;
    const words = new Set();
    for (const token of whole) for (const w of token.match(/[A-Za-z0-9]{3,}/g) || []) words.add(w.toLowerCase());
    return Array.from(words).sort((x, y) => y.length - x.length || (x < y ? -1 : 1)).slice(0, 6);
  }

  async function candidatePaths(root, words) {
    const base = new URL(root || "./", window.location.href);
    if (!pagefindModule) {
      const loaded = await import(new URL("pagefind/pagefind.js", base).href);
      await loaded.options({ baseUrl: base.pathname });
      await loaded.init();
      pagefindModule = loaded;
    }
    const found = await pagefindModule.search(words.join(" "));
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
    const wanted = normalizeQuote(citedText(sel));
    const found = { places: [], gaps: [] };
    if (!wanted) return found;
    const root = main.dataset.root;
    const paths = target && target.path ? [target.path] : [];
    const words = searchWords(wanted);
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
      for (const [start, end] of quotePlaces(wanted, doc.text, MAX_PLACES)) {
        found.places.push({ path: doc.path, blob: doc.blob, selector: spanSelector(doc.text, start, end, sel.kind) });
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

  // Writes the places the exact search found into the banner; else returns the note to show.
  function showRecovery(main, result, head, title, body) {
    const banner = document.getElementById("banner");
    const found = result.recovery || { places: [], gaps: ["the cited text was not searched for"] };
    const place = (p) => el("a", { href: versionHref(main, p.blob, head, p.path, p.selector) },
      `${p.path}@${head.slice(0, 12)}#${p.selector}`);
    const gaps = found.gaps.length ? ` Not every document was compared: ${found.gaps.join("; ")}.` : "";
    banner.dataset.places = String(found.places.length);
    if (found.places.length === 1) {
      const p = found.places[0];
      const text = `${encodePath(p.path)}@${head}#${p.selector}`;
      banner.dataset.recovery = "moved";
      banner.dataset.suggestion = text;
      title.append("The cited text moved: now at ", place(p), ".");
      body.append("Suggestion, found by exact comparison (whitespace, quotes and dashes folded); " +
        "the citation is not re-pinned until you change it: ", el("code", {}, text), "." + gaps);
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
      if (result.status === "changed") {
        const diff = el("pre", { class: "hunk" });
        for (const [os, oc, ns, nc, lines] of result.hunks) {
          diff.append(el("span", { class: "hunk-head" }, `@@ -${os},${oc} +${ns},${nc} @@\n`));
          for (const line of lines) {
            diff.append(el("span", { class: line[0] === "+" ? "add" : line[0] === "-" ? "del" : "" }, line + "\n"));
          }
        }
        // The note goes under "Show the change": the banner keeps the height reserved for it.
        const more = note ? [el("p", {}, note), diff] : [diff];
        banner.replaceChildren(cited, title, body, el("details", {}, el("summary", {}, "Show the change"), ...more));
        return;
      }
    } else {
      title.append("Cannot compare with the latest build.");
      body.append(result.reason || "This version is not in the published history of the path.");
    }
    banner.replaceChildren(cited, title, body);
  }

  async function setupBanner(main, sel) {
    const banner = document.getElementById("banner");
    const [commit, path] = pageCommitAndPath(main);
    if (!banner || !path) return;
    if (!sel) sel = { kind: "lines", a: 1, b: 1, text: "L1" };
    try {
      const root = main.dataset.root;
      const [headInfo, history] = await Promise.all([
        fetch(`${root}site.json`, { cache: "no-cache" }).then((r) => r.json()),
        fetch(`${root}history/${historyName(path).slice(0, 2)}.json`, { cache: "no-cache" })
          .then((r) => (r.ok ? r.json() : null)),
      ]);
      const record = history && history.paths ? history.paths[path] : null;
      const entry = record && record.path === path ? record.versions[main.dataset.blob] : null;
      if (!entry) {
        showBanner(main, { status: "unavailable",
          reason: `This version is not recorded for ${path} in the published history.` }, sel, headInfo);
        return;
      }
      if (commit && !entry.ranges.some((r) => r.includes(commit))) banner.dataset.commitChecked = "range-only";
      const result = decide(entry, sel, lineRangeOf(sel));
      // Searched before the banner is drawn: one change of the banner, no layout shift.
      if (result.status === "changed" || result.status === "deleted") {
        result.recovery = await findCitedText(main, entry.target, sel);
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
    if (!rendered || tabs.length === 0) return;
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
    show(sel && sel.kind !== "lines" ? "source-view" : sel ? "source-view" : "rendered");
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
    const sel = parseSelector(window.location.hash);
    setupViews(sel);
    highlight(sel);
    const term = highlightTerms();
    if (term && !sel && !window.location.hash) term.scrollIntoView({ block: "center" });
    const offer = setupCite(main);
    offer(sel);
    if (main.dataset.kind === "version") setupBanner(main, sel);
    window.addEventListener("hashchange", () => {
      const next = parseSelector(window.location.hash);
      highlight(next);
      offer(next);
      if (main.dataset.kind === "version") setupBanner(main, next);
    });
  }

  return { start, codePoints, quotePath, encodePath, historyName, parseSelector, relocateLines, decide,
    charShiftBefore, citationStrings, normalizePoints, normalizeQuote, quotePlaces, spanSelector, searchWords };
})();

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", Pincite.start);
else Pincite.start();
