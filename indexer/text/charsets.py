"""Charset labels as browsers read them: the WHATWG Encoding Standard's table, from `webencodings`.

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
