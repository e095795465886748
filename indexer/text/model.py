"""Document text and the coordinates pincite uses on it.

Text policy for the `text` class (documented in docs/offsets.md):
- a blob with a NUL byte in its first 8000 bytes is binary (git's rule), not text;
- the blob is decoded as strict UTF-8, or in the encoding the repository declares for
  its path (git's `encoding` attribute); a leading byte-order mark (U+FEFF) is not part
  of the text (offsets start after it), any other U+FEFF is kept;
- line ends are kept exactly as committed: CRLF files keep their "\r" inside the text,
  so offsets count it; a line is a run of code points ending at "\n" (git's definition),
  so lone "\r", U+2028 and friends are not line breaks;
- offsets are code points, 0-based, half-open; lines are 1-based and inclusive.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence, Sized
from dataclasses import dataclass
from itertools import accumulate

from indexer.errors import BinaryFileError, ExtractionError

BOM = "\ufeff"
UTF8 = "utf-8"
BINARY_PROBE_BYTES = 8000  # git's own: xdiff looks for a NUL byte in the first 8000 bytes


def decode_text_blob(data: bytes, path: str, encoding: str = UTF8) -> str:
    """The text of a `text`-class blob, by the policy above.

    `encoding` is a codec name from `charsets.git_encoding`, declared for the path by the
    repository (docs/offsets.md); the default is UTF-8. Both fail closed: a byte the
    declared encoding does not define is an error naming the path and the byte, and so is
    a legacy declaration on a file that is valid UTF-8 with non-ASCII bytes (a Latin-1
    reading of UTF-8 would give wrong characters and wrong offsets, never an error).
    """
    if b"\0" in data[:BINARY_PROBE_BYTES]:
        raise BinaryFileError(
            f"{path}: binary (a NUL byte in its first {BINARY_PROBE_BYTES} bytes, git's own rule), not indexed as text",
            hint="binary files other than PDF and HTML have no text to cite",
        )
    if encoding != UTF8:
        return _decode_declared(data, path, encoding)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ExtractionError(
            f"{path}: not valid UTF-8 (byte {exc.start}: {data[exc.start : exc.start + 1]!r})",
            hint="re-save the file as UTF-8 and commit it, or declare its encoding in .gitattributes "
            "(e.g. `legacy/*.txt encoding=iso-8859-1`)",
        ) from exc
    return text[1:] if text.startswith(BOM) else text


def _decode_declared(data: bytes, path: str, encoding: str) -> str:
    first_non_ascii = next((i for i, byte in enumerate(data) if byte > 0x7F), None)
    if first_non_ascii is not None:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            raise ExtractionError(
                f"{path}: declared encoding={encoding} in .gitattributes, but the file is UTF-8 "
                f"(byte {first_non_ascii}: {data[first_non_ascii : first_non_ascii + 1]!r} starts a UTF-8 sequence)",
                hint="remove the `encoding` attribute for this path",
            )
    try:
        text = data.decode(encoding)
    except UnicodeError as exc:  # a stateful codec may raise the base class, without a position
        start = getattr(exc, "start", 0)
        raise ExtractionError(
            f"{path}: not valid {encoding} as declared in .gitattributes (byte {start}: {data[start : start + 1]!r})",
            hint="correct the `encoding` attribute for this path, or re-save the file in the declared encoding",
        ) from exc
    return text[1:] if text.startswith(BOM) else text


@dataclass(frozen=True)
class Span:
    """[start, end) in code points of a document's text."""

    start: int
    end: int

    def __post_init__(self) -> None:
        if self.start < 0 or self.end < self.start:
            raise ValueError(f"invalid span [{self.start}, {self.end})")


def lines_label(first: int, last: int, dash: str = "-") -> str:
    """A line range as a reader says it: "line 10" for one line, "lines 10-12" for more.

    The one rule for every message and page that names cited lines; `dash` is "–" where the
    range is set as prose (a page), "-" in terminal output.
    """
    return f"line {first}" if first == last else f"lines {first}{dash}{last}"


def count_lines(text: str) -> int:
    """Lines as git counts them: a final line without "\n" counts, an empty tail does not."""
    return text.count("\n") + (0 if not text or text.endswith("\n") else 1)


def line_starts(lines: Sequence[Sized]) -> list[int]:
    """Where each line starts, given a text's lines without their "\\n" (`text.split("\\n")`, or the
    bytes' split): summed without a Python step per line, as a small page's lines are counted
    several times a build."""
    return list(accumulate(map(_past_newline, map(len, lines[:-1])), initial=0))


_past_newline = (1).__add__


class LineIndex:
    """Maps code-point offsets to 1-based line numbers and back."""

    def __init__(self, text: str, lines: list[str] | None = None) -> None:
        """`lines`: `text.split("\\n")`, when the caller has made it already."""
        self.text = text
        self._starts = line_starts(text.split("\n") if lines is None else lines)

    @property
    def starts(self) -> list[int]:
        """Where each line starts (a code-point offset), line 1 first."""
        return self._starts

    @property
    def line_count(self) -> int:
        return count_lines(self.text)

    def line_of(self, offset: int) -> int:
        return bisect_right(self._starts, offset)

    def line_start(self, line: int) -> int:
        return self._starts[line - 1]

    def line_end(self, line: int) -> int:
        """Offset just past the line's content (before its "\n")."""
        if line < len(self._starts):
            return self._starts[line] - 1
        return len(self.text)

    def lines_of_span(self, span: Span) -> tuple[int, int]:
        """The 1-based inclusive line range a span covers (an empty span: its own line)."""
        first = self.line_of(span.start)
        last = self.line_of(max(span.start, span.end - 1))
        return first, last

    def span_of_lines(self, first: int, last: int) -> Span:
        """Whole lines first..last, without the final line end."""
        return Span(self.line_start(first), self.line_end(last))

    def column_of(self, offset: int) -> tuple[int, int]:
        """(line, column), both 1-based, column in code points."""
        line = self.line_of(offset)
        return line, offset - self.line_start(line) + 1

    def offset_of(self, line: int, column: int) -> int:
        return self.line_start(line) + column - 1
