"""`PINCITE_<NAME>` environment variables override the repository's settings (CI sets them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer.config import env_overrides, load_config
from indexer.errors import ConfigError


def test_environment_wins_over_files_and_loses_to_explicit_overrides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pincite.toml").write_text('site_url = "https://file.example"\nroots = ["docs"]\n')
    monkeypatch.setenv("PINCITE_SITE_URL", "https://env.example/site/")
    monkeypatch.setenv("PINCITE_ROOTS", "corpus, notes/ snapshots")
    monkeypatch.setenv("PINCITE_PASSAGE_MAX_CHARS", "700")
    config = load_config(tmp_path)
    assert config.site_url == "https://env.example/site/"
    assert config.roots == ("corpus", "notes", "snapshots")
    assert config.passage_max_chars == 700
    assert load_config(tmp_path, {"site_url": "https://flag.example"}).site_url == "https://flag.example"


def test_empty_variable_counts_as_unset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pincite.toml").write_text('site_url = "https://file.example"\n')
    monkeypatch.setenv("PINCITE_SITE_URL", "")
    assert load_config(tmp_path).site_url == "https://file.example"


def test_bad_number_names_the_variable() -> None:
    with pytest.raises(ConfigError, match="PINCITE_PDF_MAX_PAGES"):
        env_overrides({"PINCITE_PDF_MAX_PAGES": "many"})


def test_negative_number_is_refused_like_a_file_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PINCITE_MAX_FILE_BYTES", "-5")
    with pytest.raises(ConfigError, match="positive number"):
        load_config(tmp_path)


def test_unrelated_variables_are_ignored() -> None:
    assert env_overrides({"PINCITE_NO_SUCH_SETTING": "x", "PATH": "/bin"}) == {}
