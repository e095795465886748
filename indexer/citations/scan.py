"""Find citations in Markdown and text documents, with the quote that goes with each.

Recognised citation forms (docs/citations.md, "Citations in your documents"):
- pincite permalinks: `https://SITE/v/BLOB.html?commit=SHA&path=PATH#L12-L18`;
- text forms: `PATH@SHA#L12-L18` (also `#c120-340`, `#L12C5-L18C9`), with the extractor
  identity when they carry one (`PATH@SHA#c120-340;x=3f2a9c1e`);
- GitHub blob URLs with a line anchor into the same repository (origin on GitHub). A link into
  another repository is no citation of this corpus: it is not reported, and a quote around it is
  still checked. A link into this repository at a branch (`blob/main/…#L3`) is reported as
  unpinned (kind "branch_link"): it names whatever the branch holds today.
Citations inside fenced code blocks are examples, not citations, and are skipped. A text
form inside Markdown emphasis (`_…_`, `__…__`, `*…*`, `**…**`) is found without the markers.
A near-miss, `PATH@SHA#` followed by something that is not a selector (`#L1ff`, `#L1_2`),
is reported as malformed (kind "near_miss") instead of being passed over in silence.

The quote of a citation, first rule that applies:
1. the link text, when the citation is a Markdown link whose text is in double quotes:
   `["seven years"](PERMALINK)`;
2. the last double-quoted string ("…" or “…”) earlier in the same paragraph or list
   item, after any previous citation there;
3. for the first citation of a paragraph: the blockquote directly above the paragraph
   (at most one blank line between) unless that blockquote holds a citation itself, or,
   when the citation sits inside a blockquote, the lines of that blockquote above it.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass

from indexer.citations.verdicts import CitationForm
from indexer.errors import CitationSyntaxError
from indexer.text.citation import IDENTITY_KEY, Citation, parse_github_url, parse_permalink, parse_text_form

_STOP = r"\s<>()\[\]\"'`"
_PERMALINK = rf"https?://[^{_STOP}]*?/v/[0-9a-f]{{40}}\.html\?[^{_STOP}#]*#[A-Za-z0-9-]+"
_GITHUB = (
    rf"https://github\.com/[\w.-]+/[\w.-]+/blob/[0-9a-fA-F]{{4,40}}/[^{_STOP}?#]+(?:\?[^{_STOP}#]*)?#L\d+(?:-L\d+)?"
)
# A blob URL at a branch or tag name, not a commit: its lines change whenever the branch moves.
_BRANCH = rf"https://github\.com/[\w.-]+/[\w.-]+/blob/(?![0-9a-fA-F]{{4,40}}/)[^{_STOP}?#/]+/[^{_STOP}?#]+(?:\?[^{_STOP}#]*)?#L\d+(?:-L\d+)?"
_GITHUB_OWNER = re.compile(r"https://github\.com/(?P<owner>[\w.-]+)/(?P<name>[\w.-]+)/blob/(?P<ref>[^/?#]+)/")
_TEXT_START = r"(?<![^\s(\[<\"'`>|*_])[^\s@#()<>\[\]\"'`|*]+@[0-9a-fA-F]{4,40}#"
# A selector (and the extractor identity after it) ends at a non-word character, or at
# underscores closing Markdown emphasis; a mistyped identity (`;x=zz`) is a near-miss.
_TEXT = (
    rf"{_TEXT_START}(?:L\d+C\d+-L\d+C\d+|L\d+(?:-L\d+)?|c\d+-\d+)(?:;{IDENTITY_KEY}=[0-9a-fA-F]{{8,64}})?"
    rf"(?!;{IDENTITY_KEY}=)(?:(?![\w-])|(?=_+(?![\w-])))"
)
_ANY = re.compile(f"(?P<permalink>{_PERMALINK})|(?P<github>{_GITHUB})|(?P<branch_link>{_BRANCH})|(?P<text>{_TEXT})")
# What a text form with a mistyped selector looks like: `PATH@SHA#L1ff`, `PATH@SHA#L1_2`, `#c5`.
_NEAR_MISS = re.compile(rf"{_TEXT_START}[LlCc]\d[^\s()<>\[\]\"'`|*]*")
# What any citation holds — a text form's `@<hex>#`, a permalink's `/v/<blob>.html`, a GitHub blob
# URL with a line anchor — found far faster than the scan itself: a text without it holds no citation to scan for.
CITATION_HINT = re.compile(r"@[0-9a-fA-F]{4,40}#|/v/[0-9a-f]{40}\.html|github\.com/[^\s#]+/blob/[^\s#]+#L\d")
_TRAILING_PUNCTUATION = ".,;:!?"
_UNDERSCORES = re.compile("_*")
NEAR_MISS_HINT = "write the selector as #L12, #L12-L18, #c120-340 or #L12C5-L18C9"
BRANCH_HINT = "pin it to a commit: `pincite cite` writes one, or press `y` on GitHub for the commit's URL"
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_BLOCKQUOTE = re.compile(r"^ {0,3}> ?")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")
_QUOTED = re.compile(r"\"([^\"\n]+(?:\n[^\"\n]+)*)\"|“([^”]+)”|«([^»]+)»")
_LINK_TEXT_QUOTE = re.compile(r"^\s*(?:\"(.+)\"|“(.+)”|«(.+)»)\s*$", re.S)


@dataclass(frozen=True)
class Found:
    """One citation in a document: where, as written, parsed (or why not), and its quote."""

    line: int
    start: int
    end: int
    raw: str
    kind: CitationForm
    citation: Citation | None
    error: str | None
    quote: str | None
    site_base: str | None = None
    github_repo: tuple[str, str] | None = None


class _Lines:
    """Per-line facts of a document, computed once (scanning stays linear in its size)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]
        lines = text.split("\n")
        self.lines = lines
        self.in_fence: list[bool] = []
        self.para_start: list[int] = []
        fenced = False
        for i, line in enumerate(lines):
            is_fence = bool(_FENCE.match(line))
            self.in_fence.append(fenced or is_fence)
            if is_fence:
                fenced = not fenced
            boundary = (
                i == 0
                or not line.strip()
                or not lines[i - 1].strip()
                or self.is_quote(i) != self.is_quote(i - 1)
                or bool(_LIST_ITEM.match(line))
            )
            self.para_start.append(i if boundary else self.para_start[i - 1])

    def is_quote(self, i: int) -> bool:
        return bool(_BLOCKQUOTE.match(self.lines[i]))

    def line_of(self, offset: int) -> int:
        return bisect_right(self.starts, offset) - 1


OwnRepo = Callable[[tuple[str, str]], bool]  # whether a GitHub (owner, name) is this corpus's repository


def scan(text: str, ours: OwnRepo | None = None) -> list[Found]:
    """Every citation in `text`, in order, with its quote.

    `ours` tells a GitHub link into this corpus's repository from one into another; without it,
    every GitHub link counts as this corpus's.
    """
    facts = _Lines(text)
    found: list[Found] = []
    previous_end_in_para: dict[int, int] = {}
    for kind, start, end in _candidates(text):
        row = facts.line_of(start)
        if facts.in_fence[row] or not _counts(kind, text[start:end], ours):
            continue
        para = facts.para_start[row]
        first_in_para = para not in previous_end_in_para
        region_start = previous_end_in_para.get(para, facts.starts[para])
        # The link text lies after the paragraph's previous citation: looking no further back keeps a
        # long paragraph of many links linear.
        quote = _link_text_quote(text, start, region_start)
        if quote is None:
            quote = _inline_quote(text[region_start:start])
        if quote is None and first_in_para:
            quote = _blockquote_above(facts, row, para, ours)
        previous_end_in_para[para] = end
        found.append(_parse(kind, text[start:end], start, end, row + 1, quote))
    return found


def _candidates(text: str) -> list[tuple[CitationForm, int, int]]:
    """(kind, start, end) of every citation and near-miss in `text`, in order."""
    spans: list[tuple[CitationForm, int, int]] = []
    for match in _ANY.finditer(text):
        kind, start, end = CitationForm(match.lastgroup or CitationForm.TEXT), match.start(), match.end()
        if kind == CitationForm.TEXT:
            start = _after_opening_emphasis(text, start, end)
        spans.append((kind, start, end))
    # The matches of one `finditer` neither overlap nor go back: sorted by start, so by end too.
    taken_starts = [m_start for _, m_start, _ in spans]
    taken_ends = [m_end for _, _, m_end in spans]
    for match in _NEAR_MISS.finditer(text):
        start, end = match.start(), match.end()
        while end > start and text[end - 1] in _TRAILING_PUNCTUATION:
            end -= 1
        if not _overlaps(taken_starts, taken_ends, start, end):
            spans.append((CitationForm.NEAR_MISS, start, end))
    return sorted(spans, key=lambda s: s[1])


def _overlaps(starts: list[int], ends: list[int], start: int, end: int) -> bool:
    """Whether [start, end) overlaps one of the sorted, disjoint spans (`starts[i]`, `ends[i]`): only
    the last span starting before `end` can, found by bisection (one near-miss costs log n, not n)."""
    last = bisect_left(starts, end) - 1
    return last >= 0 and ends[last] > start


def _after_opening_emphasis(text: str, start: int, end: int) -> int:
    """Where a text form starts once the `_` opening emphasis around it is dropped (`_PATH@SHA#L9_`)."""
    # Matched in place, never `text[end:]`: a copy of the rest of the document per citation is quadratic.
    closing = _underscores(text, end, len(text))
    opening = _underscores(text, start, end)
    return start + min(opening, closing)


def _underscores(text: str, start: int, stop: int) -> int:
    """How many `_` stand in `text` from `start` on (not past `stop`)."""
    run = _UNDERSCORES.match(text, start, stop)
    return run.end() - start if run else 0


def _counts(kind: CitationForm, raw: str, ours: OwnRepo | None) -> bool:
    """Whether a match is a citation of this corpus: a GitHub link into another repository is not."""
    if kind not in (CitationForm.GITHUB, CitationForm.BRANCH_LINK) or ours is None:
        return True
    repo = _GITHUB_OWNER.match(raw)
    return repo is not None and ours((repo.group("owner"), repo.group("name")))


def _parse(kind: CitationForm, raw: str, start: int, end: int, line: int, quote: str | None) -> Found:
    if kind == CitationForm.BRANCH_LINK:
        link = _GITHUB_OWNER.match(raw)
        ref = link.group("ref") if link else "?"
        error = f"a link to branch {ref!r}, not to a commit: it names whatever the branch holds today"
        owner = (link.group("owner"), link.group("name")) if link else None
        return Found(line, start, end, raw, kind, None, error, quote, github_repo=owner)
    if kind == CitationForm.NEAR_MISS:
        selector = raw[raw.rindex("#") :]
        error = f"{selector!r} is not a selector ({NEAR_MISS_HINT})"
        if f";{IDENTITY_KEY}=" in selector:
            try:
                parse_text_form(raw)
            except CitationSyntaxError as exc:
                error = exc.message
        return Found(line, start, end, raw, kind, None, error, quote)
    try:
        if kind == CitationForm.PERMALINK:
            citation, base = parse_permalink(raw)
            return Found(line, start, end, raw, kind, citation, None, quote, site_base=base)
        if kind == CitationForm.GITHUB:
            citation, repo = parse_github_url(raw)
            return Found(line, start, end, raw, kind, citation, None, quote, github_repo=repo)
        citation = parse_text_form(raw)
    except CitationSyntaxError as exc:
        return Found(line, start, end, raw, kind, None, exc.message, quote)
    return Found(line, start, end, raw, kind, citation, None, quote)


def _link_text_quote(text: str, start: int, para_offset: int) -> str | None:
    if start < 2 or text[start - 2 : start] != "](":
        return None
    close = start - 2
    depth = 0
    for i in range(close - 1, para_offset - 1, -1):
        ch = text[i]
        if ch == "]":
            depth += 1
        elif ch == "[":
            if depth == 0:
                inner = _LINK_TEXT_QUOTE.match(text[i + 1 : close])
                if inner:
                    return next(g for g in inner.groups() if g is not None)
                return None
            depth -= 1
    return None


def _inline_quote(region: str) -> str | None:
    last = None
    for m in _QUOTED.finditer(region):
        last = m
    if last is None:
        return None
    return next(g for g in last.groups() if g is not None)


def _blockquote_above(facts: _Lines, row: int, para: int, ours: OwnRepo | None) -> str | None:
    if facts.is_quote(row):
        end = row  # the citation sits inside a blockquote: quote its lines above it
        start = row
        while start > 0 and facts.is_quote(start - 1) and facts.lines[start - 1].strip() != ">":
            start -= 1
    else:
        end = para
        if end > 0 and not facts.lines[end - 1].strip():
            end -= 1
        start = end
        while start > 0 and facts.is_quote(start - 1):
            start -= 1
    if start == end:
        return None
    body = [_BLOCKQUOTE.sub("", facts.lines[i], count=1) for i in range(start, end)]
    quote = "\n".join(body).strip()
    if any(_counts(CitationForm(m.lastgroup or CitationForm.TEXT), m.group(), ours) for m in _ANY.finditer(quote)):
        return None  # that blockquote is already attributed to its own citation (a link elsewhere is not one)
    return quote or None
