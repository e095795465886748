"""The `text` source class: a blob's bytes decoded under the text policy, nothing extracted."""

from __future__ import annotations

from indexer.extract.base import ExtractedText, Limits
from indexer.text.kinds import MARKDOWN_EXTENSIONS, TEXT_EXTENSIONS
from indexer.text.model import decode_text_blob


class TextExtractor:
    name = "text"
    extensions: tuple[str, ...] = TEXT_EXTENSIONS
    source_class = "text"
    install_hint = ""
    VERSION = 1

    def available(self) -> bool:
        return True

    def identity(self) -> str:
        return f"text/{self.VERSION}"

    def extract(self, data: bytes, path: str, limits: Limits | None = None) -> ExtractedText:
        text = decode_text_blob(data, path)
        is_md = path.lower().endswith(MARKDOWN_EXTENSIONS)
        return ExtractedText(text, "text", self.identity(), is_markdown=is_md)
