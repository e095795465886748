"""The typed config object read from pincite.toml or [tool.pincite]."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer.config import SETTINGS_HELP, Config, config_fields, load_config
from indexer.errors import ConfigError


def test_defaults_without_files(tmp_path: Path) -> None:
    assert load_config(tmp_path) == Config()


def test_pyproject_then_pincite_toml_then_overrides(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.pincite]\nroots = ["docs"]\nsite_url = "https://a.example"\n')
    assert load_config(tmp_path).roots == ("docs",)
    (tmp_path / "pincite.toml").write_text('site_url = "https://b.example"\npassage_max_chars = 500\n')
    config = load_config(tmp_path, {"site_url": "https://c.example"})
    assert (config.roots, config.site_url, config.passage_max_chars) == (("docs",), "https://c.example", 500)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("roots = 3\n", "must be a list of strings"),
        ("passage_max_chars = -1\n", "positive number"),
        ("passage_max_chars = 60\n", "under the least of 100"),
        ("no_such = 1\n", "unknown pincite setting"),
        ("roots = [\n", "not valid TOML"),
        ('ocr_languages = ["eng+deu"]\n', "'eng\\+deu', which is not a Tesseract language name"),
        ('ocr_languages = ["eng", "eng"]\n', "names a language twice"),
    ],
)
def test_bad_settings_name_the_file_and_the_setting(tmp_path: Path, content: str, message: str) -> None:
    (tmp_path / "pincite.toml").write_text(content)
    with pytest.raises(ConfigError, match=message) as info:
        load_config(tmp_path)
    assert "pincite.toml" in str(info.value)


def test_every_setting_is_documented() -> None:
    assert {name for name, _, _ in config_fields()} == set(SETTINGS_HELP)


def test_a_true_or_false_setting_reads_toml_booleans_and_words(tmp_path: Path) -> None:
    (tmp_path / "pincite.toml").write_text("site_publish_index = true\n", encoding="utf-8")
    assert load_config(tmp_path).site_publish_index is True
    assert load_config(tmp_path, {"site_publish_index": "off"}).site_publish_index is False
    with pytest.raises(ConfigError, match="true or false"):
        load_config(tmp_path, {"site_publish_index": "maybe"})


def test_ocr_languages_are_tesseract_names_and_an_empty_list_turns_ocr_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert load_config(tmp_path).ocr_languages == ("eng",)
    (tmp_path / "pincite.toml").write_text('ocr_languages = ["eng", "deu", "chi_sim"]\n')
    assert load_config(tmp_path).ocr_languages == ("eng", "deu", "chi_sim")
    (tmp_path / "pincite.toml").write_text("ocr_languages = []\n")
    assert load_config(tmp_path).ocr_languages == ()
    monkeypatch.setenv("PINCITE_OCR_LANGUAGES", "deu,fra")
    assert load_config(tmp_path).ocr_languages == ("deu", "fra")
