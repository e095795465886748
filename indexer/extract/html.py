"""HTML text through readability-lxml: the main content, as lines of plain text.

The text of an HTML version (docs/extractors.md):
- bytes are decoded by the first of: a byte-order mark (UTF-8, UTF-16); a charset in a
  `<meta charset>` or `<meta http-equiv="Content-Type">` tag within the first 1024 bytes
  (labels as browsers read them: latin-1 and ASCII mean windows-1252); UTF-8. Bytes that
  are not valid in that charset are refused, never guessed at;
- readability-lxml picks the main content; when it finds none, the whole body is used
  and `notes` says so;
- scripts, styles, templates, comments, form fields, `hidden` / `aria-hidden="true"` /
  `display:none` / `visibility:hidden` elements never reach the text;
- block elements start new lines, paragraphs and headings are separated by one blank
  line, table cells of a row are joined with " | ", `<br>` is a line break; outside
  `<pre>` every run of HTML whitespace is one space and lines are stripped; `<pre>`
  lines keep their spaces (trailing ones dropped); the text is NFC and ends with "\\n";
- HTML nested deeper than libxml2 parses (256 levels) is refused, since the parser
  would drop the rest of the document.
"""

from __future__ import annotations

import codecs
import html
import re
import unicodedata
from typing import Any

from indexer.errors import ExtractionError
from indexer.extract.base import ExtractedText, Limits, captured_log, cpu_limit, importable, library_version
from indexer.text import charsets
from indexer.text.kinds import HTML_EXTENSIONS

VERSION = 1
INSTALL_HINT = "pip install 'pincite[html]'"
FALLBACK_NOTE = "readability found no main content; the text is the whole body"

_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16le"), (codecs.BOM_UTF16_BE, "utf-16be"))
_META_CHARSET = re.compile(rb"""<meta\b[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.IGNORECASE)
_SKIP = frozenset(
    {
        "script",
        "style",
        "noscript",
        "template",
        "head",
        "title",
        "meta",
        "link",
        "base",
        "iframe",
        "object",
        "embed",
        "svg",
        "math",
        "canvas",
        "input",
        "select",
        "textarea",
        "button",
        "datalist",
    }
)
_PARAGRAPH = frozenset(
    {
        "p",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "pre",
        "blockquote",
        "ul",
        "ol",
        "dl",
        "table",
        "figure",
        "hr",
        "address",
        "section",
        "article",
        "header",
        "footer",
        "aside",
        "nav",
        "main",
        "details",
        "form",
        "fieldset",
    }
)
_BLOCK = _PARAGRAPH | frozenset(
    {
        "div",
        "li",
        "dt",
        "dd",
        "tr",
        "caption",
        "figcaption",
        "summary",
        "dialog",
        "hgroup",
        "legend",
        "thead",
        "tbody",
        "tfoot",
        "body",
        "html",
        "center",
    }
)
_CELLS = frozenset(("td", "th"))
_HTML_SPACE_CHARS = " \t\n\r\f"
# Only runs that need changing match (two or more characters, or one that is not a space):
# in ordinary prose that is a handful of matches rather than one per word.
_HTML_SPACE = re.compile(r" [ \t\n\r\f]+|[\t\n\r\f][ \t\n\r\f]*")
# Comments, scripts and styles, read as an HTML tokenizer reads them (a script ends at the first
# `</script`), are cut before parsing: megabytes of script then cost one scan, not the parser's
# text-size limit.
_RAW_TEXT = re.compile(r"<!--.*?-->|<(script|style)\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_TITLE = re.compile(r"<title\b[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)


def decode_html(data: bytes, path: str) -> tuple[str, tuple[str, ...]]:
    """The document's characters by the charset policy above, and notes about the decision."""
    for bom, label in _BOMS:
        if data.startswith(bom):
            return _decode(data[len(bom) :], _known(label), path, "its byte-order mark"), ()
    match = _META_CHARSET.search(data[:1024])
    if match is None:
        return _decode(data, charsets.UTF8, path, "the default (no charset declared)"), ()
    label = match.group(1).decode("ascii")
    charset = charsets.lookup(label)
    if charset is None:
        raise ExtractionError(
            f"{path}: unknown charset {label!r} in its <meta> tag", hint="declare a known charset, e.g. utf-8"
        )
    if charset.name.startswith("utf-16"):
        charset = charsets.UTF8  # a <meta> tag cannot declare UTF-16 (its own bytes would not be ASCII)
    text = _decode(data, charset, path, f"its <meta> charset {label!r}")
    notes: tuple[str, ...] = ()
    if not charset.is_utf8 and _is_utf8_beyond_ascii(data):
        notes = (f"declares charset {label!r} but its bytes are valid UTF-8; decoded as declared",)
    return text, notes


def _decode(data: bytes, charset: charsets.Charset, path: str, source: str) -> str:
    try:
        return charset.decode(data)
    except UnicodeDecodeError as exc:
        raise ExtractionError(
            f"{path}: not valid {charset.name} at byte {exc.start} ({data[exc.start : exc.start + 4]!r}); "
            f"the charset comes from {source}",
            hint="fix the <meta charset> declaration, or re-save the file in the declared charset",
        ) from exc


def _known(label: str) -> charsets.Charset:
    charset = charsets.lookup(label)
    assert charset is not None, label
    return charset


def _is_utf8_beyond_ascii(data: bytes) -> bool:
    if data.isascii():
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


class HtmlExtractor:
    """HTML pages and snapshots: the readable article's text, by readability-lxml (the html extra)."""

    name = "html"
    extensions: tuple[str, ...] = HTML_EXTENSIONS
    source_class = "extracted"
    install_hint = INSTALL_HINT

    def available(self) -> bool:
        return all(importable(m) for m in ("readability", "lxml", "lxml_html_clean"))

    def identity(self) -> str:
        import lxml.etree

        libxml2 = ".".join(str(n) for n in lxml.etree.LIBXML_VERSION)
        return (
            f"html/{VERSION} readability-lxml={library_version('readability-lxml')} "
            f"lxml={library_version('lxml')} libxml2={libxml2}"
        )

    def identities(self, limits: Limits) -> tuple[str, ...]:
        return (self.identity(),)

    def extract(self, data: bytes, path: str, limits: Limits | None = None) -> ExtractedText:
        limits = limits or Limits()
        markup, notes = decode_html(data, path)
        if not markup.strip():
            raise ExtractionError(f"{path}: no extractable text (the file is empty)", hint="commit the page's HTML")
        with captured_log("readability"), cpu_limit(limits.timeout_seconds, path):
            try:
                text, title, fallback = _main_text(markup, path)
            except ExtractionError:
                raise
            except Exception as exc:  # readability and lxml raise many types for broken markup
                raise ExtractionError(
                    f"{path}: HTML could not be parsed ({type(exc).__name__}: {exc})",
                    hint="check that the file is HTML; re-save it from its source",
                ) from exc
        if fallback:
            notes += (FALLBACK_NOTE,)
        if not text:
            raise ExtractionError(f"{path}: no extractable text", hint="the page has no visible text to index")
        return ExtractedText(text, "extracted", self.identity(), title, (), notes)


def _main_text(markup: str, path: str) -> tuple[str, str, bool]:
    """(text, title, whether the whole body was used)."""
    import lxml.etree
    from readability import Document
    from readability.htmls import utf8_parser

    markup = _RAW_TEXT.sub("", markup)
    document = Document(markup)
    summary = document.summary(html_partial=True)
    _refuse_lost_content(path, utf8_parser)
    title = _title(markup)
    # Plain lxml.etree elements: lxml.html's element-class lookup would cost more than the walk.
    parser = lxml.etree.HTMLParser(encoding="utf-8")
    text = ""
    if summary.strip():
        text = html_to_text(lxml.etree.fromstring(summary.encode("utf-8", "surrogatepass"), parser))
        _refuse_lost_content(path, parser)
    if text:
        return text, title, False
    page = lxml.etree.fromstring(markup.encode("utf-8", "surrogatepass"), parser)
    _refuse_lost_content(path, parser)
    body = page.find("body") if page is not None else None
    return (html_to_text(body if body is not None else page) if page is not None else ""), title, True


def _refuse_lost_content(path: str, parser: Any) -> None:
    """libxml2 stops at its resource limits (nesting depth, huge text) and drops the rest."""
    for entry in parser.error_log:
        if entry.type_name == "ERR_RESOURCE_LIMIT" or "Excessive depth" in entry.message:
            raise ExtractionError(
                f"{path}: the HTML parser gave up at line {entry.line} ({entry.message.strip()}); "
                "the text after it would be lost",
                hint="the page nests elements too deeply or holds a huge text block; simplify it and commit it again",
            )


def _title(markup: str) -> str:
    """The first <title> within the first 64 KiB, entities decoded, whitespace folded.

    Read from the markup because readability's cleaning drops the head.
    """
    match = _TITLE.search(markup, 0, 65536)
    return " ".join(html.unescape(match.group(1)).split()) if match else ""


def html_to_text(root: Any) -> str:
    """The text of an lxml element by the block and whitespace rules in the module docstring."""
    import lxml.etree

    out = _Lines()
    pre_depth = 0
    skipped: set[Any] = set()
    # lxml walks the tree in C (no recursion, so deep trees cannot exhaust the stack);
    # comments and processing instructions come as their own events so their tails are kept.
    walker = lxml.etree.iterwalk(root, events=("start", "end", "comment", "pi"))
    for event, element in walker:
        if event == "start":
            tag = element.tag
            if tag in _SKIP or (element.attrib and _hidden(element)):
                walker.skip_subtree()
                skipped.add(element)
                continue
            out.block_start(tag, element)
            if tag == "pre":
                pre_depth += 1
            if element.text:
                out.text(element.text, pre_depth > 0)
            continue
        if event == "end":
            if element in skipped:
                skipped.discard(element)
            else:
                out.block_end(element.tag)
                if element.tag == "pre":
                    pre_depth -= 1
        if element is not root and element.tail:
            out.text(element.tail, pre_depth > 0)
    return out.result()


def _hidden(element: Any) -> bool:
    if element.get("hidden") is not None:
        return True
    if (element.get("aria-hidden") or "").strip().lower() == "true":
        return True
    style = (element.get("style") or "").lower().replace(" ", "")
    return "display:none" in style or "visibility:hidden" in style


_TO_SPACE = str.maketrans("\t\n\r\f", "    ")


def fold_whitespace(text: str) -> str:
    """Runs of HTML whitespace become one space, none at either end (no other character counts).

    Splitting at single spaces after mapping the other four to spaces keeps this in C; a regex
    visits every character from Python's engine and cost more than the rest of the walk.
    """
    return " ".join(filter(None, text.translate(_TO_SPACE).split(" ")))


class _Lines:
    """Collects text into lines; breaks are only materialised when more text follows."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.segments: list[tuple[str, bool]] = []  # (text, from <pre>)
        self.raw = False
        self.pending = 0  # 0 none, 1 line break, 2 blank line

    def block_start(self, tag: str, element: Any) -> None:
        if tag in _PARAGRAPH:
            self.pending = 2
        elif tag in _BLOCK or tag == "br":
            self.pending = max(self.pending, 1)
        elif tag in _CELLS and element.getprevious() is not None:
            self.add(" | ", raw=False)

    def block_end(self, tag: str) -> None:
        if tag in _PARAGRAPH:
            self.pending = 2
        elif tag in _BLOCK:
            self.pending = max(self.pending, 1)

    def text(self, value: str, in_pre: bool) -> None:
        if not in_pre:
            self.add(value, raw=False)
            return
        for number, part in enumerate(value.replace("\r\n", "\n").replace("\r", "\n").split("\n")):
            if number:
                self.end_line(keep_empty=True)
            if part:
                self.add(part, raw=True)

    def add(self, value: str, raw: bool) -> None:
        if self.pending:
            self.end_line()
            if self.pending == 2 and self.lines and self.lines[-1] != "":
                self.lines.append("")
            self.pending = 0
        self.segments.append((value, raw))
        self.raw = self.raw or raw

    def end_line(self, keep_empty: bool = False) -> None:
        # Whitespace is folded once per line, not per text node: most lines hold many nodes.
        if self.raw:
            line = "".join(text if raw else _HTML_SPACE.sub(" ", text) for text, raw in self.segments)
            line = line.rstrip(_HTML_SPACE_CHARS)
        else:
            line = fold_whitespace("".join(text for text, _raw in self.segments))
        if line or keep_empty:
            self.lines.append(line)
        self.segments = []
        self.raw = False

    def result(self) -> str:
        self.end_line()
        text = "\n".join(self.lines).strip("\n")
        return unicodedata.normalize("NFC", text) + "\n" if text.strip() else ""
