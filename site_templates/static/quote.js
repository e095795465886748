// Quote matching for the drift banner's recovery search: indexer.text.normalize.normalize_for_match
// and indexer.citations.quote's places, code point for code point; the tests compare the two on
// generated text.

// NFC, then ligatures folded to their letters and a hyphen between two letters left out with the
// whitespace after it, then typographic quotes and dashes folded, then whitespace runs (Python's
// str.isspace) folded to one space; each normalized code point remembers the offset it came from.
const LIGATURES = new Map(Array.from("\ufb00\ufb01\ufb02\ufb03\ufb04\ufb05\ufb06\ufb13\ufb14\ufb15\ufb16\ufb17")
  .map((c) => [c, Array.from(c.normalize("NFKC"))]));
const WORD_HYPHENS = new Set(["-", "\u00ad", "\u2010", "\u2011"]);
const LETTER = /^\p{L}$/u;
const FOLD = new Map([
  ..."\u2018\u2019\u201a\u201b\u2032".split("").map((c) => [c, "'"]),
  ..."\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb".split("").map((c) => [c, '"']),
  ..."\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d".split("").map((c) => [c, "-"]),
]);
const SPACES = new Set(("\t\n\v\f\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005" +
  "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000").split(""));
// Code points NFC may merge into the one before them (Python 3.11's unicodedata: a non-zero
// combining class, or a second half of a canonical composition): indexer.text.normalize._starts_segment's complement.
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
export function normalizePoints(text) {
  const points = Array.from(text);
  let composed = points, origin = null;
  if (text.normalize("NFC") !== text) {
    composed = [];
    origin = [];
    let start = 0;
    for (let i = 1; i <= points.length; i++) {
      if (i < points.length && isNonStarter(points[i].codePointAt(0))) continue;
      const source = points.slice(start, i);
      const segment = Array.from(source.join("").normalize("NFC"));
      let consumed = 0;
      for (let j = 0; j < segment.length; j++) {
        // Where code point j starts: the shortest source prefix whose NFC holds the ones before it
        // (indexer.text.normalize._segment_origins): a mark NFC leaves standing keeps an offset of its own.
        composed.push(segment[j]);
        origin.push(start + consumed);
        const want = segment.slice(0, j + 1).join("");
        while (consumed < source.length &&
               !source.slice(0, consumed).join("").normalize("NFC").startsWith(want)) consumed++;
      }
      start = i;
    }
  }
  [composed, origin] = foldLetters(composed, origin);
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

// indexer.text.normalize._fold_letters: ligatures to letters (each keeping the ligature's offset),
// a hyphen between two letters left out together with the whitespace after it.
function foldLetters(points, origin) {
  const out = [], from = [];
  for (let i = 0; i < points.length; i++) {
    const at = origin ? origin[i] : i;
    const letters = LIGATURES.get(points[i]);
    if (letters) {
      for (const l of letters) { out.push(l); from.push(at); }
      continue;
    }
    if (WORD_HYPHENS.has(points[i]) && i > 0 && LETTER.test(points[i - 1])) {
      let j = i + 1;
      while (j < points.length && SPACES.has(points[j])) j++;
      if (j < points.length && LETTER.test(points[j])) { i = j - 1; continue; }
    }
    out.push(points[i]);
    from.push(at);
  }
  return [out, from];
}

// The same as a string, with one offset per UTF-16 unit, so String.indexOf can search it.
export function normalizeForMatch(text) {
  const [points, offsets] = normalizePoints(text);
  const units = [];
  points.forEach((ch, i) => { units.push(offsets[i]); if (ch.length === 2) units.push(offsets[i]); });
  units.push(offsets[offsets.length - 1]);
  return [points.join(""), units];
}

// indexer.text.normalize.normalize: how a quote is compared (ends stripped of the folded space).
// A word hyphen ("-", a soft hyphen…) at either end next to a letter goes too, at the start with the
// space after it (a quote cut at a word's hyphen).
export function normalizeQuote(text) {
  const points = Array.from(normalizePoints(text)[0].join("").replace(/^ +| +$/g, ""));
  if (points.length > 1 && WORD_HYPHENS.has(points[points.length - 1]) && LETTER.test(points[points.length - 2])) {
    points.pop();
  }
  let first = 1;
  while (first < points.length && points[first] === " ") first++;
  if (WORD_HYPHENS.has(points[0]) && first < points.length && LETTER.test(points[first])) return points.slice(first).join("");
  return points.join("");
}

// Every [start, end) (code points) where the normalized `wanted` stands in `text`
// (indexer.citations.quote.cite_quote and exact_places: the end is indexer.citations.quote._end_offset's).
export function quotePlaces(wanted, text, most) {
  if (!wanted) return [];
  const [norm, offsets] = normalizeForMatch(text);
  const points = Array.from(text);
  const total = offsets[offsets.length - 1];
  const places = [];
  let at = norm.indexOf(wanted);
  while (at !== -1 && places.length < most) {
    const last = offsets[at + wanted.length - 1];
    let end = total;
    for (let k = at + wanted.length; k < offsets.length; k++) if (offsets[k] > last) { end = offsets[k]; break; }
    // A hyphen left out between two letters (and the whitespace after it) is not part of the match.
    let cut = end;
    while (cut - 1 > last && SPACES.has(points[cut - 1])) cut--;
    if (cut - 1 > last && WORD_HYPHENS.has(points[cut - 1])) end = cut - 1;
    places.push([offsets[at], end]);
    at = norm.indexOf(wanted, at + 1);
  }
  return places;
}

// Words Pagefind can look up: whole ASCII words (a span may cut its first and last word).
export function searchWords(wanted, most = 6) {
  const tokens = wanted.split(" ");
  const whole = tokens.length > 2 ? tokens.slice(1, -1) : tokens;
  const words = new Set();
  for (const token of whole) for (const w of token.match(/[A-Za-z0-9]{3,}/g) || []) words.add(w.toLowerCase());
  return Array.from(words).sort((x, y) => y.length - x.length || (x < y ? -1 : 1)).slice(0, most);
}
