"""A text document's title, by its format: what lists, search results and page titles show.

- Markdown: front matter's `title:` (YAML between `---` lines at the top), else the first
  heading (ATX `# Title` or setext);
- reStructuredText: the document title docutils promotes (the first section title);
- AsciiDoc: the `= Title` line of its header;
- every format: a leading mail-style header block with a `Title:` field (the form older
  text proposals and RFC-like documents use) names the title;
- otherwise no title (""): callers show the path.

A title is what a reader would pick (docs/design.md#d17): never markup (`**withdrawn**` is
"withdrawn", `` :pep:`8` `` is "8", `# Title {#id}` is "Title"), and never a generic heading
that many documents share ("Summary", "Motivation": 604 of rust-lang/rfcs' 650 documents
begin with `# Summary`). Which headings are generic is the corpus's to say, not a word list's:
`shared_titles` names the titles that more than `SHARED_SHARE` of a corpus's documents (and at
least `SHARED_MIN` of them) hold, and for those the document's own metadata names it — an
RFC-style `- Feature Name: …` or `Title: …` line near the top — or else its file name
(`0002-rfc-process.md` is "RFC process", spelled as the text spells its words): `fallback_title`.
`document_title` is a document's own title, which one document alone cannot judge.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from indexer.text import asciidoc, rst
from indexer.text.kinds import TextFormat

MAX_TITLE = 200
_FRONT_MATTER_TITLE = re.compile(r"^title:\s*(.+?)\s*$")
_HEADER_FIELD = re.compile(r"^[A-Za-z][A-Za-z0-9-]*:\s")
_ATX = re.compile(r"^ {0,3}#{1,6}\s+(.+?)(?:\s+#+)?\s*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)\s*$")
# A title more than this share of a corpus's documents hold, and at least SHARED_MIN of them, names
# none of them: the share the render-fidelity benchmark counts as shared (docs/design.md#d17).
SHARED_SHARE = 0.01
SHARED_MIN = 3
# `- Feature Name: `const_generics``, `* Title: …`: metadata lines at the top of an RFC-style document.
_METADATA_TITLE = re.compile(r"^\s*[-*+]?\s*(?:feature[ -]name|title|name)\s*:\s*(.+?)\s*$", re.IGNORECASE)
# Placeholders RFC authors write for "no feature name" (rust-lang/rfcs: N/A ×56, none ×3, NA ×2, not applicable ×2).
_NOT_A_NAME = re.compile(
    r"^(?:n\.?/?a\.?|none|no|tbd|not applicable|unknown|-+|\(.*\)|<.*>|`?\(?fill me in.*)$", re.IGNORECASE
)
_NAME_PREFIX = re.compile(r"^(?:[0-9]+|rfc|pep)?[-_ .]*(?:[0-9]+[-_ .]+)?", re.IGNORECASE)
# Inline markup a title may hold, Markdown's and reST's; each keeps its text.
_MARKUP = (
    (re.compile(r"\s*\{\s*[#.][^{}]*\}\s*$"), ""),  # heading attributes
    (re.compile(r"!?\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])"), r"\1"),  # links and images
    (re.compile(r"<[^<>]+>"), ""),  # raw HTML tags
    (re.compile(r":[\w.:+-]+:`([^`<]*?)\s*(?:<[^`]*>)?`"), r"\1"),  # reST roles (`title <target>`: the title)
    (re.compile(r"`+([^`]+)`+_{0,2}"), r"\1"),  # code, reST references
    (re.compile(r"(\*\*|__|~~)(\S(?:.*?\S)?)\1"), r"\2"),  # strong, strikethrough
    (re.compile(r"(?<![\w*])([*_])(\S(?:.*?\S)?)\1(?![\w*])"), r"\2"),  # emphasis
)
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")  # a backslash escape: the character itself, never markup
_HOLE = "\ue000"
# A character every pattern above (and the hole) needs: a title without one is left as it is.
_MARKUP_CHARS = re.compile(r"[{\[<:`*_~\\\ue000]")


def document_title(text: str, fmt: TextFormat, path: str = "") -> str:
    lines = text[:20_000].splitlines()  # a title stands near the top; a huge file is not scanned whole
    found = _header_title(lines)
    if not found:
        if fmt == "markdown":
            found = _markdown_title(lines)
        elif fmt == "rst":
            found = rst.title(lines)
        elif fmt == "asciidoc":
            found = asciidoc.title(lines)
    return plain(found)[:MAX_TITLE]


def fallback_title(text: str, path: str) -> str:
    """What names a document whose own title many share: its metadata line, else its file name ("" for none)."""
    return (plain(_metadata_title(text[:20_000].splitlines())) or name_title(path, text))[:MAX_TITLE]


def title_key(title: str) -> str:
    """Titles that differ only in case or end punctuation are one title ("Summary", "Summary:")."""
    return title.strip(" .:").casefold()


def shared_titles(titles: Iterable[str]) -> frozenset[str]:
    """The keys (`title_key`) of the titles more than `SHARED_SHARE` of these documents' titles, and at
    least `SHARED_MIN` of them, hold: a heading such as "Summary" that opens many documents of a kind."""
    counts = Counter(title_key(t) for t in titles if t)
    total = sum(counts.values())
    floor = max(SHARED_MIN, int(total * SHARED_SHARE) + 1)
    return frozenset(key for key, n in counts.items() if n >= floor)


def plain(title: str) -> str:
    """A title without its inline markup, whitespace folded."""
    if not _MARKUP_CHARS.search(title):  # most titles (`tar`, `git commit`) hold none: eight patterns less
        return " ".join(title.split())
    escaped = _ESCAPED.findall(title)
    title = _ESCAPED.sub(_HOLE, title.replace(_HOLE, ""))
    for pattern, replacement in _MARKUP:
        title = pattern.sub(replacement, title)
    pieces = title.split(_HOLE)
    title = pieces[0] + "".join(char + rest for char, rest in zip(escaped, pieces[1:], strict=False))
    return " ".join(title.split())


def _metadata_title(lines: list[str]) -> str:
    """An RFC-style `- Feature Name: …` (or `Title:`) line among a document's first lines."""
    for line in lines[:30]:
        found = _METADATA_TITLE.match(line)
        if found:
            value = found.group(1).strip().strip("`*_").strip()
            if value and not _NOT_A_NAME.match(value):
                return value
    return ""


def name_title(path: str, text: str = "") -> str:
    """A title made of a file's name: `text/0002-rfc-process.md` is "RFC process".

    Numbers and an `rfc-`/`pep-` prefix go, separators become spaces, and each word is
    spelled as the document itself spells it most often (so "rfc" is "RFC" where the text
    writes "RFC"); the first letter is a capital. A name like `README` or `index` names
    nothing: its folder's name is used.
    """
    parts = [part for part in path.split("/") if part]
    while parts:
        stem = parts.pop().rsplit(".", 1)[0] if "." in parts[-1][1:] else parts.pop()
        words = _NAME_PREFIX.sub("", stem).replace("_", " ").replace("-", " ").split()
        if all(word.isdigit() for word in words):  # `pep-0999`: the number is the name
            words = stem.replace("_", " ").replace("-", " ").split()
        if words and " ".join(words).lower() not in ("readme", "index", "main", "intro"):
            break
    else:
        return ""
    spellings: dict[str, dict[str, int]] = {}
    wanted = {word.lower() for word in words}
    for word in re.findall(r"[^\W_]+", text[:50_000]):
        if word.lower() in wanted:
            counts = spellings.setdefault(word.lower(), {})
            counts[word] = counts.get(word, 0) + 1
    spelled = [_spelling(word, spellings.get(word.lower(), {})) for word in words]
    title = " ".join(spelled)
    return title[:1].upper() + title[1:]


def _spelling(word: str, counts: dict[str, int]) -> str:
    """The document's most frequent spelling of a word; as written (lower case) when it does not use it."""
    if not counts:
        return word.lower()
    best = max(counts.items(), key=lambda item: (item[1], item[0].isupper()))[0]
    # A capital that only starts sentences ("Process") is no spelling of its own: keep the lower case.
    if best[:1].isupper() and best[1:].islower() and word.lower() in counts:
        return word.lower()
    return best


def _header_title(lines: list[str]) -> str:
    """`Title:` in a leading block of `Field: value` lines (with indented continuation lines)."""
    for line in lines:
        if not line.strip():
            return ""
        if line[:1] in " \t":
            continue
        if not _HEADER_FIELD.match(line):
            return ""
        name, value = line.split(":", 1)
        if name.lower() == "title":
            return value.strip()
    return ""


def _markdown_title(lines: list[str]) -> str:
    body = lines
    if lines and lines[0].strip() == "---":
        for n in range(1, len(lines)):
            if lines[n].strip() in ("---", "..."):
                for line in lines[1:n]:
                    found = _FRONT_MATTER_TITLE.match(line)
                    if found:
                        return found.group(1).strip("\"'")
                body = lines[n + 1 :]
                break
    in_fence = False
    for n, line in enumerate(body):
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        atx = _ATX.match(line)
        if atx:
            return atx.group(1)
        if line.strip() and n + 1 < len(body) and _SETEXT.match(body[n + 1]) and not _SETEXT.match(line):
            return line.strip()
    return ""
