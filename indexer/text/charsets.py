"""Charset labels: as browsers read them (web pages), and as git's `encoding` attribute names them.

Web pages: the WHATWG Encoding Standard's table, from `webencodings`.

A page that says `iso-8859-1` is read by every browser as windows-1252, `iso-8859-9` as
windows-1254, and `unicode-1-1-utf-8` as UTF-8; UTF-7 is never honoured. The HTML extractor
and the snapshot checks both ask this module, so they cannot disagree about a page.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

import webencodings


@dataclass(frozen=True)
class Charset:
    """A charset label as written, the WHATWG encoding it names, and the codec that decodes it."""

    label: str  # as the document or server wrote it
    name: str  # the WHATWG name, e.g. "windows-1252"
    codec: codecs.CodecInfo

    def decode(self, data: bytes) -> str:
        """The characters of `data`; raises UnicodeDecodeError at the first byte not valid here."""
        text, _consumed = self.codec.decode(data, "strict")
        return str(text)

    @property
    def is_utf8(self) -> bool:
        return self.name == "utf-8"


def lookup(label: str) -> Charset | None:
    """The charset a label names for a browser, or None when browsers know no such label."""
    encoding = webencodings.lookup(label.strip())
    if encoding is None or encoding.name == "replacement":
        return None
    return Charset(label, encoding.name, encoding.codec_info)


UTF8 = Charset("utf-8", "utf-8", codecs.lookup("utf-8"))


def git_encoding(label: str) -> str | None:
    """The codec a `.gitattributes` `encoding=<label>` names for a text document, or None.

    git hands these labels to iconv, which reads `ISO-8859-1` as Latin-1 itself, not as
    windows-1252 the way browsers do; Python's codec names follow iconv here. Only
    encodings that spell ASCII (and so "\\n") as ASCII are accepted: pincite's lines are
    git's lines, and a UTF-16 file holds NUL bytes, so git treats it as binary anyway.
    Returns Python's canonical name (e.g. "iso8859-1", "cp1252", "shift_jis").
    """
    try:
        codec = codecs.lookup(label.strip())
    except (LookupError, ValueError):  # ValueError: a label with a NUL in it
        return None
    # Bytes-to-bytes codecs (zlib, base64, hex, bz2, uu, quopri) and rot13 are not text
    # encodings: Python marks them so (`bytes.decode` refuses them the same way).
    if not getattr(codec, "_is_text_encoding", True):
        return None
    # ASCII both ways: `hz` reads `~{` as a shift and `raw_unicode_escape` reads `\u0041` as "A".
    probe = "\n\r\t azAZ09#.-~{\\u0041\\x41"
    try:
        ascii_safe = (
            codec.encode(probe)[0] == probe.encode("ascii")
            and codec.decode(probe.encode("ascii"))[0] == probe
            and codec.name != "utf-7"
        )
    except (UnicodeError, TypeError):
        return None
    return codec.name if ascii_safe else None
