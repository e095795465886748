"""A document's language, as a BCP 47 tag: what its pages declare (`<html lang>`) and Pagefind stems by.

In order, the first that names one:
- Markdown front matter's `lang:` (or `language:`), YAML between `---` lines at the top;
- a folder of its path that names a language, nearest the file first: `de/`, `zh-cn/`, `zh_CN/`,
  `pt-BR/`, or a name with the language after its last dot, `pages.de/` (tldr-pages' layout);
- the site's setting (`site_language`, English unless set).

A bare folder name counts only when it is one of `FOLDER_LANGUAGES`: a code corpus has folders
named `ts/`, `os/` or `io/` (two-letter codes of Tsonga, Ossetian and Ido) that name no language
of its text, and a page taken for another language is searched only by readers of that one.
"""

from __future__ import annotations

import re

from indexer.config import language_tag

# Languages a folder may name: those with a stemmer in Pagefind, and the widely written others
# (tldr-pages' 30+ translations among them).
FOLDER_LANGUAGES = frozenset(
    [
        "ar",
        "bg",
        "bn",
        "bs",
        "ca",
        "cs",
        "da",
        "de",
        "el",
        "en",
        "eo",
        "es",
        "et",
        "eu",
        "fa",
        "fi",
        "fr",
        "ga",
        "gl",
        "he",
        "hi",
        "hr",
        "hu",
        "hy",
        "id",
        "it",
        "ja",
        "ka",
        "kk",
        "ko",
        "lt",
        "lv",
        "ml",
        "mr",
        "ne",
        "nl",
        "no",
        "pl",
        "pt",
        "ro",
        "ru",
        "sk",
        "sl",
        "sr",
        "sv",
        "sw",
        "ta",
        "te",
        "th",
        "tr",
        "uk",
        "ur",
        "uz",
        "vi",
        "zh",
    ]
)
_FRONT_MATTER_LANG = re.compile(r"^(?:lang|language):\s*[\"']?([A-Za-z0-9_-]+)[\"']?\s*$")
FRONT_MATTER_LINES = 50


def front_matter_language(text: str) -> str | None:
    """The `lang:` of Markdown front matter at the top of `text`, when it is a language tag."""
    lines = text[:5_000].splitlines()
    if not lines or lines[0].strip() != "---":
        return None
    for line in lines[1:FRONT_MATTER_LINES]:
        if line.strip() in ("---", "..."):
            return None
        match = _FRONT_MATTER_LANG.match(line.strip())
        if match:
            return language_tag(match.group(1))
    return None


def folder_language(path: str) -> str | None:
    """The language a folder of `path` names, nearest the file first (`pages.de/common/tar.md`: `de`)."""
    for folder in reversed(path.split("/")[:-1]):
        name = folder.rpartition(".")[2]
        tag = language_tag(name)
        if tag and tag.split("-")[0] in FOLDER_LANGUAGES:
            return tag
    return None


def document_language(path: str, text: str, default: str) -> str:
    """The language of the document at `path` holding `text`; `default` when nothing names one."""
    return front_matter_language(text) or folder_language(path) or default
