// The strings `pincite cite --chars A-B` (or --lines) prints for a span of a page's text: the text
// form, the permalink, and the Markdown snippet of indexer.api.markdown_snippet, character for
// character. Pure: the page passes its text and facts in.
import { quotePath, encodePath } from "./paths.js";
import { lineRangeOf, linesSelector } from "./selectors.js";

// A line range as a reader says it: "line 10" for one line, "lines 10-12" for more (the rule of
// indexer.text.model.lines_label); `dash` is "–" where the range is set as prose.
export function linesLabel(first, last, dash = "-") {
  return first === last ? `line ${first}` : `lines ${first}${dash}${last}`;
}

// `page`: { points (the text's code points), starts (its line starts), commit, path, blob,
// identity (the extractor identity token, or ""), base (the site's base URL, ending in "/") }.
export function citationStrings(page, span) {
  const { points, starts, commit, path, identity } = page;
  let selector, quote, lines;
  if (span.kind === "lines") {
    selector = linesSelector(span.a, span.b);
    const end = starts[span.b] - (points[starts[span.b] - 1] === "\n" ? 1 : 0);
    quote = points.slice(starts[span.a - 1], end).join("");
    lines = [span.a, span.b];
  } else {
    selector = `c${span.a}-${span.b}`;
    quote = points.slice(span.a, span.b).join("");
    lines = lineRangeOf(span, starts);
  }
  // A PDF or HTML page's offsets count its extractor's text: the citation names that identity.
  const text = `${encodePath(path)}@${commit}#${selector}${identity ? `;x=${identity}` : ""}`;
  const permalink = `${page.base}v/${page.blob}.html?commit=${commit}&path=${quotePath(path)}` +
    `${identity ? `&x=${identity}` : ""}#${selector}`;
  const quoted = quote.replace(/\n+$/, "").split("\n").map((l) => (l ? "> " + l : ">")).join("\n");
  const label = `${path}, ${linesLabel(lines[0], lines[1])}`;
  const markdown = `${quoted}\n\n— [${label}](${permalink})\n`;
  return { text, permalink, markdown, quote };
}
