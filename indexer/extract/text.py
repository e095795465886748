"""The `text` source class: a blob's bytes decoded under the text policy, nothing extracted.

It reads every file no other extractor claims (docs/design.md#d15): a file git treats as
binary is refused by `decode_text_blob`, anything else is a text document. Its identity
names the declared encoding when it is not UTF-8 (`text/1;encoding=iso8859-1`), because
the code points a citation counts depend on it.
"""

from __future__ import annotations

from indexer.extract.base import ExtractedText, Limits
from indexer.text.kinds import TextFormat, text_format
from indexer.text.model import UTF8, decode_text_blob
from indexer.text.titles import document_title

ENCODING_MARK = ";encoding="


class TextExtractor:
    """Every other file: its bytes decoded by the text policy are its text, cited as they stand."""

    name = "text"
    extensions: tuple[str, ...] = ()  # the fallback: chosen when no other extractor claims the name
    source_class = "text"
    install_hint = ""
    VERSION = 1

    def __init__(self, encoding: str = UTF8) -> None:
        self.encoding = encoding

    def available(self) -> bool:
        return True

    def identity(self) -> str:
        base = f"text/{self.VERSION}"
        return base if self.encoding == UTF8 else f"{base}{ENCODING_MARK}{self.encoding}"

    def identities(self, limits: Limits) -> tuple[str, ...]:
        return (self.identity(),)

    def extract(self, data: bytes, path: str, limits: Limits | None = None) -> ExtractedText:
        text = decode_text_blob(data, path, self.encoding)
        fmt = text_format(path)
        return ExtractedText(
            text, "text", self.identity(), title=document_title(text, fmt, path), is_markdown=fmt == "markdown"
        )


def encoding_of(identity: str) -> str | None:
    """The encoding a `text` identity records (UTF-8 when it names none); None for other identities."""
    if not identity.startswith("text/"):
        return None
    return identity.split(ENCODING_MARK, 1)[1] if ENCODING_MARK in identity else UTF8


def passage_format(path: str, identity: str) -> TextFormat:
    """The format a version's passages and title are read in: its name's for the text class
    (Markdown, reST, AsciiDoc or plain), plain for the text an extractor gave."""
    return text_format(path) if encoding_of(identity) is not None else "plain"
