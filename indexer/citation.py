"""Citations: (commit, path, span), their text form, and parsing back.

Text form (docs/citations.md):

    PATH@COMMIT#L12            one line (1-based)
    PATH@COMMIT#L12-L18        lines 12..18 inclusive
    PATH@COMMIT#c120-340       code points [120, 340) of the document text
    PATH@COMMIT#L12C5-L18C9    line 12 column 5 .. line 18 column 9 (columns 1-based,
                               code points, end exclusive)

COMMIT is the full 40-hex SHA when emitted; parsing accepts 4..40 hex digits and the
caller resolves abbreviations against the repository. In PATH, the characters
`%`, `@`, `#`, space, control characters and `()<>[]` are percent-encoded (UTF-8), so
the form survives Markdown and terminals; other non-ASCII characters stay readable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import CitationSyntaxError

_ENCODE = set("%@# ()<>[]\"'`")
_TEXT_FORM = re.compile(r"^(?P<path>[^@#\s]+)@(?P<commit>[0-9a-fA-F]{4,40})#(?P<sel>[^\s]+)$")
_LINES = re.compile(r"^L(\d+)(?:-L(\d+))?$")
_CHARS = re.compile(r"^c(\d+)-(\d+)$")
_LINECOL = re.compile(r"^L(\d+)C(\d+)-L(\d+)C(\d+)$")


@dataclass(frozen=True)
class Citation:
    """A span pinned to a commit. Exactly one of `lines`, `chars`, `linecol` is set."""

    commit: str
    path: str
    lines: tuple[int, int] | None = None
    chars: tuple[int, int] | None = None
    linecol: tuple[int, int, int, int] | None = None
    quote: str | None = None
    prefix: str | None = None
    suffix: str | None = None

    def __post_init__(self) -> None:
        chosen = [s for s in (self.lines, self.chars, self.linecol) if s is not None]
        if len(chosen) != 1:
            raise CitationSyntaxError("a citation needs exactly one of lines, chars or line:column")
        if self.lines is not None and not (1 <= self.lines[0] <= self.lines[1]):
            raise CitationSyntaxError(f"line range L{self.lines[0]}-L{self.lines[1]} is empty or reversed")
        if self.chars is not None and not (0 <= self.chars[0] <= self.chars[1]):
            raise CitationSyntaxError(f"character range c{self.chars[0]}-{self.chars[1]} is reversed")
        if self.linecol is not None:
            l1, c1, l2, c2 = self.linecol
            if min(l1, c1, l2, c2) < 1 or (l2, c2) < (l1, c1):
                raise CitationSyntaxError(f"line:column range L{l1}C{c1}-L{l2}C{c2} is reversed or zero-based")

    @property
    def selector(self) -> str:
        if self.lines is not None:
            a, b = self.lines
            return f"L{a}" if a == b else f"L{a}-L{b}"
        if self.chars is not None:
            return f"c{self.chars[0]}-{self.chars[1]}"
        assert self.linecol is not None
        l1, c1, l2, c2 = self.linecol
        return f"L{l1}C{c1}-L{l2}C{c2}"

    def text_form(self) -> str:
        return f"{encode_path(self.path)}@{self.commit}#{self.selector}"


def encode_path(path: str) -> str:
    return "".join(_percent(ch) if ch in _ENCODE or ord(ch) < 0x20 or ord(ch) == 0x7F else ch for ch in path)


def _percent(ch: str) -> str:
    return "".join(f"%{b:02X}" for b in ch.encode("utf-8"))


def decode_path(encoded: str) -> str:
    raw = bytearray()
    i = 0
    while i < len(encoded):
        ch = encoded[i]
        if ch == "%":
            hexpart = encoded[i + 1 : i + 3]
            if not re.fullmatch(r"[0-9A-Fa-f]{2}", hexpart):
                raise CitationSyntaxError(f"bad percent-escape {encoded[i : i + 3]!r} in path {encoded!r}")
            raw.append(int(hexpart, 16))
            i += 3
        else:
            raw.extend(ch.encode("utf-8"))
            i += 1
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CitationSyntaxError(f"path {encoded!r} decodes to invalid UTF-8") from exc


def parse_selector(selector: str, source: str) -> dict[str, tuple[int, ...]]:
    if m := _LINES.match(selector):
        first = int(m.group(1))
        last = int(m.group(2)) if m.group(2) else first
        return {"lines": (first, last)}
    if m := _CHARS.match(selector):
        return {"chars": (int(m.group(1)), int(m.group(2)))}
    if m := _LINECOL.match(selector):
        return {"linecol": tuple(int(g) for g in m.groups())}
    raise CitationSyntaxError(
        f"{source!r}: span {selector!r} is not one of L12, L12-L18, c120-340, L12C5-L18C9",
    )


def parse_text_form(text: str) -> Citation:
    """Parse `PATH@COMMIT#SELECTOR`; the commit may be abbreviated (resolve it later)."""
    candidate = text.strip()
    m = _TEXT_FORM.match(candidate)
    if not m:
        if "@" not in candidate:
            raise CitationSyntaxError(f"{text!r}: missing '@COMMIT' (expected PATH@COMMIT#L12-L18)")
        if "#" not in candidate:
            raise CitationSyntaxError(f"{text!r}: missing '#SPAN' (expected PATH@COMMIT#L12-L18)")
        raise CitationSyntaxError(f"{text!r}: not a citation (expected PATH@COMMIT#L12-L18 with a 4-40 hex commit)")
    path = decode_path(m.group("path"))
    selector = parse_selector(m.group("sel"), text)
    return Citation(commit=m.group("commit").lower(), path=path, **selector)  # type: ignore[arg-type]
