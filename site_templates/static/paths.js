// A repository path as the site's URLs, citations and history files write it.

/** Python's urllib.parse.quote(path, safe="/"): indexer/site/render.py's url_path. */
export function quotePath(path) {
  return encodeURIComponent(path)
    .replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase())
    .replace(/%2F/g, "/");
}

// indexer.text.citation.encode_path: the characters that would break the text form, and every
// character Python's str.isspace or the categories Cc, Cf, Zs, Zl, Zp name (the space characters
// are all in Cc or Z). The browser's Unicode tables may be newer than Python's: a code point that
// Python does not know yet may be escaped here and not there (decode_path reads both).
const ENCODE = new Set(["%", "@", "#", " ", "(", ")", "<", ">", "[", "]", '"', "'", "`"]);
const HIDDEN = /^[\p{Cc}\p{Cf}\p{Z}]$/u;

export function encodePath(path) {
  let out = "";
  for (const ch of path) {
    if (ENCODE.has(ch) || HIDDEN.test(ch)) {
      for (const b of new TextEncoder().encode(ch)) out += "%" + b.toString(16).toUpperCase().padStart(2, "0");
    } else {
      out += ch;
    }
  }
  return out;
}

/** FNV-1a 64 of the UTF-8 bytes: the name of a path's history file (indexer.site.render.history_name). */
export function historyName(path) {
  let h = 0xcbf29ce484222325n;
  for (const b of new TextEncoder().encode(path)) {
    h ^= BigInt(b);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, "0");
}

/**
 * Where the page of a repository path lives under `folder` (indexer.site.render.site_page): a name
 * past the file system's 255 bytes, or a path past 1024, becomes the path's hash.
 */
export function sitePage(folder, path) {
  const parts = path.split("/");
  const sizes = parts.map((part) => new TextEncoder().encode(part).length);
  sizes[sizes.length - 1] += ".html".length;
  const total = sizes.reduce((a, b) => a + b, 0) + parts.length + folder.length;
  if (Math.max(...sizes) > 255 || total > 1024) return `${folder}/~long/${historyName(path)}.html`;
  return `${folder}/${quotePath(path)}.html`;
}
