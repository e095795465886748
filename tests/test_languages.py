"""Every language searched as itself: a page's language, its `<html lang>`, Pagefind's index per language."""

from __future__ import annotations

import importlib.util
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from indexer.api import build
from indexer.config import Config, language_tag, load_config
from indexer.errors import ConfigError
from indexer.site.serve import serve_in_thread
from indexer.text.language import document_language, folder_language, front_matter_language
from tests.conftest import CorpusRepo


@pytest.mark.parametrize(
    "path,expected",
    [
        ("pages.de/common/tar.md", "de"),
        ("pages.zh_TW/linux/ls.md", "zh-TW"),
        ("docs/zh-cn/guide.md", "zh-CN"),
        ("docs/zh_CN/guide.md", "zh-CN"),
        ("site/pt-BR/intro/start.md", "pt-BR"),
        ("fr/de/notes.md", "de"),  # the folder nearest the file
        ("src/ts/io/os/readme.md", None),  # code folders, not languages
        ("docs/api/guide.md", None),
        ("de.md", None),  # a file name names no language
    ],
)
def test_a_folder_names_a_language(path: str, expected: str | None) -> None:
    assert folder_language(path) == expected


def test_front_matter_names_the_language_before_the_folder_and_the_setting() -> None:
    text = "---\ntitle: Verträge\nlang: de-AT\n---\n\n# Verträge\n"
    assert front_matter_language(text) == "de-AT"
    assert document_language("pages.fr/a.md", text, "en") == "de-AT"
    assert document_language("pages.fr/a.md", "# A\n", "en") == "fr"
    assert document_language("corpus/a.md", "# A\n\nlang: de\n", "nl") == "nl"  # not front matter
    assert front_matter_language("---\nlang: not a tag\n---\n") is None


def test_language_tags_are_written_one_way() -> None:
    assert [language_tag(t) for t in ("DE", "zh_cn", "zh-hans", "sr-Latn-rs", "es-419")] == [
        "de",
        "zh-CN",
        "zh-Hans",
        "sr-Latn-RS",
        "es-419",
    ]
    assert language_tag("english") is None and language_tag("") is None


GERMAN = "# Verträge\n\nDie Verträge werden jährlich von der Aufsicht geprüft.\n"
CHINESE = "# 保留\n\n我们的数据库保留期限是七年。\n"
ENGLISH = "# Contracts\n\nThe contracts are reviewed every year by the board.\n"


def _multilingual_site(corpus_repo: CorpusRepo, tmp_path: Path) -> Path:
    corpus_repo.commit(
        {
            "corpus/pages/contracts.md": ENGLISH,
            "corpus/pages.de/vertraege.md": GERMAN,
            "corpus/zh-cn/baoliu.md": CHINESE,
        }
    )
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=Config())
    return site


def test_pages_name_their_language_and_pagefind_indexes_each(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    site = _multilingual_site(corpus_repo, tmp_path)
    lang = re.compile(r'<html lang="([^"]+)">')

    def page_lang(rel: str) -> str:
        found = lang.search((site / rel).read_text(encoding="utf-8"))
        assert found, rel
        return found.group(1)

    assert page_lang("doc/corpus/pages.de/vertraege.md.html") == "de"
    assert page_lang("doc/corpus/zh-cn/baoliu.md.html") == "zh-CN"
    assert page_lang("doc/corpus/pages/contracts.md.html") == "en"
    blob = corpus_repo.git("rev-parse", "HEAD:corpus/pages.de/vertraege.md").strip()
    assert page_lang(f"v/{blob}.html") == "de"
    listing = json.loads((site / "search-bundles.json").read_text(encoding="utf-8"))
    assert listing["languages"] == {"de": 1, "en": 1, "zh-cn": 1}
    assert listing["bundle_languages"] == {listing["bundles"][0]: ["de", "en", "zh-cn"]}


@pytest.fixture
def served_languages(corpus_repo: CorpusRepo, tmp_path: Path) -> Iterator[str]:
    server, base = serve_in_thread(_multilingual_site(corpus_repo, tmp_path))
    yield str(base)
    server.shutdown()
    server.server_close()


def _results(page: Any, base: str, query: str) -> list[str]:
    page.goto(base + query)
    page.locator("#search-status", has_text="match").wait_for()
    return [link.get_attribute("href") for link in page.locator(".result-link").all()]


def test_each_language_is_searched_with_its_own_stemmer(served_languages: str, browser: Any) -> None:
    context = browser.new_context(locale="en-US")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    base = served_languages
    # "Vertrag" is found in "Verträge" by the German stemmer only.
    assert any("pages.de/vertraege" in href for href in _results(page, base, "search.html?q=Vertrag&lang=de"))
    assert page.evaluate("document.documentElement.lang") == "de"
    assert page.locator("#f-lang option").all_inner_texts() == ["de (1)", "en (1)", "zh-cn (1)"]
    # The reader's own language when none is asked; English pages are not in the German index.
    assert any("pages/contracts" in href for href in _results(page, base, "search.html?q=contract"))
    assert page.locator("#f-lang").input_value() == "en"
    assert _results(page, base, "search.html?q=contract&lang=de") == []
    context.close()
    german = browser.new_context(locale="de-DE")
    tab = german.new_page()
    assert any("pages.de/vertraege" in href for href in _results(tab, base, "search.html?q=gepr%C3%BCft"))
    german.close()
    assert errors == []


def _segments_chinese() -> bool:
    """Whether the Pagefind that builds the site cuts Chinese text into words: its extended build does."""
    return importlib.util.find_spec("pagefind_bin_extended") is not None or "extended" in os.environ.get(
        "PAGEFIND_BINARY_PATH", ""
    )


@pytest.mark.skipif(not _segments_chinese(), reason="needs Pagefind's extended build: pip install 'pagefind[extended]'")
def test_a_chinese_page_is_found_by_a_two_character_word(served_languages: str, browser: Any) -> None:
    page = browser.new_page()
    # A word of two characters inside a sentence written without spaces.
    assert any("zh-cn/baoliu" in href for href in _results(page, served_languages, "search.html?q=期限&lang=zh-cn"))
    assert page.evaluate("document.documentElement.lang") == "zh-cn"
    page.close()


def test_a_bundle_keeps_the_webassembly_of_the_languages_no_earlier_bundle_holds(
    corpus_repo: CorpusRepo, tmp_path: Path, browser: Any
) -> None:
    files: dict[str, str | bytes | None] = {}
    for n in range(6):
        files[f"corpus/pages/contracts{n}.md"] = ENGLISH + f"\nNote {n}: " + "board " * 300 + "\n"
        files[f"corpus/pages.de/vertraege{n}.md"] = GERMAN + f"\nNotiz {n}: " + "Aufsicht " * 300 + "\n"
    corpus_repo.commit(files)
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=Config(site_search_part_mb=0.02))
    listing = json.loads((site / "search-bundles.json").read_text(encoding="utf-8"))
    assert len(listing["bundles"]) >= 3
    wasm = {name: sorted(f.name for f in (site / "pagefind" / name).glob("wasm.*")) for name in listing["bundles"]}
    first = {
        lang: next(b for b in listing["bundles"] if lang in listing["bundle_languages"][b]) for lang in ("de", "en")
    }
    expected = {b: sorted(f"wasm.{lang}.pagefind" for lang, holder in first.items() if holder == b) for b in wasm}
    assert wasm == expected
    # Every bundle still holds the script a reader may start from.
    assert all((site / "pagefind" / b / "pagefind.js").is_file() for b in listing["bundles"])

    server, base = serve_in_thread(site)
    try:
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        found_de = _results(page, str(base), "search.html?q=Vertrag&lang=de")
        found_en = _results(page, str(base), "search.html?q=contract&lang=en")
        assert len(found_de) == 6 and all("pages.de/" in href for href in found_de)
        assert len(found_en) == 6 and all("pages/contracts" in href for href in found_en)
        assert errors == []
        page.close()
    finally:
        server.shutdown()
        server.server_close()


def test_the_site_language_setting_is_a_language_tag(tmp_path: Path) -> None:
    (tmp_path / "pincite.toml").write_text('site_language = "pt_br"\n')
    assert load_config(tmp_path).site_language == "pt-BR"
    (tmp_path / "pincite.toml").write_text('site_language = "Portuguese"\n')
    with pytest.raises(ConfigError, match=r"site_language.*is not a language tag"):
        load_config(tmp_path)
