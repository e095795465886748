"""The one typed configuration object, read from the corpus repository.

Settings come from `[tool.pincite]` in the repository's `pyproject.toml` or from a
`pincite.toml` at its root (the latter wins when both exist), then from `PINCITE_<NAME>`
environment variables (so a CI job can set one per run). Every field of `Config`
is a setting; its docstring-like comment in `SETTINGS_HELP` is the documentation that
`docs/configuration.md` is generated from.
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from indexer.errors import ConfigError

# Below this, a cut inside a long line could not keep short words whole (indexer.text.chunk).
MIN_PASSAGE_CHARS = 100


@dataclass(frozen=True)
class Config:
    roots: tuple[str, ...] = ("corpus", "snapshots")
    history_start: str | None = None
    max_file_bytes: int = 20_000_000
    passage_max_chars: int = 1200
    index_path: str = ".pincite/index.sqlite"
    site_dir: str = "_site"
    site_url: str = ""
    site_title: str = "pincite corpus"
    site_publish_index: bool = False
    site_search_delta_share: float = 0.05
    site_search_part_mb: float = 20.0
    template_dir: str | None = None
    pdf_max_pages: int = 2000
    pdf_page_images: int = 100
    extract_timeout_seconds: float = 60.0
    discovery_indexes: tuple[str, ...] = ()
    fetch_max_bytes: int = 10_000_000
    fetch_timeout_seconds: float = 30.0


SETTINGS_HELP: dict[str, str] = {
    "roots": "Folders (relative to the repository root) whose files are indexed; `.` is the whole repository.",
    "history_start": "First commit (any rev) of the first-parent history to index; empty means the whole history.",
    "max_file_bytes": "Files larger than this are skipped with a message.",
    "passage_max_chars": f"Upper bound on a passage's length in code points (at least {MIN_PASSAGE_CHARS}).",
    "index_path": "Where the SQLite index lives, relative to the repository root.",
    "site_dir": "Output folder of the static site, relative to the repository root.",
    "site_url": "Public base URL of the site; permalinks start with it.",
    "site_title": "Title shown on the site's pages.",
    "site_publish_index": "Also publish the index file in the site, as `pincite.sqlite` (it is larger than the site).",
    "site_search_delta_share": "Share of the document pages that may change (be added, edited or removed) after "
    "the base search bundle was made before a build indexes every page into a new base; until then a build "
    "indexes only the changed pages, into the delta bundle.",
    "site_search_part_mb": "Megabytes of document pages one Pagefind run indexes at most: Pagefind holds its "
    "whole index in memory, some 11–15 bytes per byte of page, so a larger base search bundle is made in parts "
    "of about this size, one after another, that the browser searches as one (a search downloads a little more).",
    "template_dir": "A folder of Jinja2 templates that override the shipped ones.",
    "pdf_max_pages": "PDFs with more pages are skipped as oversized.",
    "pdf_page_images": "Pages of each PDF the site shows as printed, with the cited words lit: pages up to this "
    "number get an image and word boxes (about 30 KB a page of text); 0 turns page images off.",
    "extract_timeout_seconds": "Time limit for extracting one document.",
    "discovery_indexes": "Other pincite index files searched by the local discovery provider.",
    "fetch_max_bytes": "Largest response body `pincite snapshot` accepts.",
    "fetch_timeout_seconds": "Total time limit for one snapshot fetch.",
}


# Paths pincite writes to (or loads templates from). A committed settings file must keep them
# inside the repository: building someone's branch must not overwrite files elsewhere.
CONFINED_PATHS = ("index_path", "site_dir", "template_dir")
# Numeric settings where 0 is a choice (off), not a mistake.
ZERO_MEANS_OFF = ("pdf_page_images",)


def load_config(repo_root: Path, overrides: dict[str, Any] | None = None) -> Config:
    """Read the settings of the repository at `repo_root`, then apply `overrides`.

    Environment variables and `overrides` are the operator's explicit choice; only paths
    that come from the repository's own files are confined to the repository.
    """
    from_files: dict[str, Any] = {}
    pyproject = repo_root / "pyproject.toml"
    if pyproject.is_file():
        from_files.update(_read_toml(pyproject).get("tool", {}).get("pincite", {}))
    own_file = repo_root / "pincite.toml"
    if own_file.is_file():
        from_files.update(_read_toml(own_file))
    source = own_file if own_file.is_file() else pyproject
    explicit = {**env_overrides(os.environ), **{k: v for k, v in (overrides or {}).items() if v is not None}}
    config = _coerce({**from_files, **explicit}, source=source)
    for name in CONFINED_PATHS:
        if name in from_files and name not in explicit:
            _check_inside(repo_root, name, getattr(config, name), source)
    return config


def _check_inside(repo_root: Path, name: str, value: str | None, source: Path) -> None:
    """Refuse a path from a settings file that is absolute or leads out of the repository."""
    if not value:
        return
    root = repo_root.resolve()
    target = (root / value).resolve()  # resolves `..` and symlinks that already exist
    if Path(value).is_absolute() or not target.is_relative_to(root) or target == root:
        raise ConfigError(
            f"{source}: setting {name} = {value!r} points outside the repository ({target})",
            hint=f"use a path inside the repository; to write elsewhere on purpose, pass it on the command "
            f"line or set {ENV_PREFIX}{name.upper()}",
        )


ENV_PREFIX = "PINCITE_"


def env_overrides(environ: Mapping[str, str]) -> dict[str, Any]:
    """Settings given as `PINCITE_<NAME>` variables; lists are separated by commas or spaces.

    An empty variable counts as unset, because CI expressions expand to "" when a value is absent.
    """
    values: dict[str, Any] = {}
    for name, expected, _help in config_fields():
        variable = ENV_PREFIX + name.upper()
        raw = environ.get(variable, "").strip()
        if not raw:
            continue
        if isinstance(expected, tuple):
            values[name] = [item for item in re.split(r"[,\s]+", raw) if item]
        elif isinstance(expected, (int, float)) and not isinstance(expected, bool):
            try:
                values[name] = type(expected)(raw)
            except ValueError as exc:
                raise ConfigError(
                    f"environment variable {variable}={raw!r} is not a number", hint=f"set {variable} to a number"
                ) from exc
        else:
            values[name] = raw
    return values


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})", hint="fix the file") from exc


def _coerce(values: dict[str, Any], source: Path) -> Config:
    known = {f.name: f for f in dataclasses.fields(Config)}
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise ConfigError(
            f"{source}: unknown pincite setting(s): {', '.join(unknown)}",
            hint=f"known settings: {', '.join(known)}",
        )
    defaults = Config()
    clean: dict[str, Any] = {}
    for name, value in values.items():
        expected = getattr(defaults, name)
        clean[name] = _coerce_one(name, value, expected, source)
    return dataclasses.replace(defaults, **clean)


def _coerce_one(name: str, value: Any, expected: Any, source: Path) -> Any:
    if isinstance(expected, tuple):
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{source}: setting {name!r} must be a list of strings")
        return tuple(_root(v, source) for v in value) if name == "roots" else tuple(value)
    if isinstance(expected, bool):
        return _bool(name, value, source)
    if expected is None or isinstance(expected, str):
        if value is not None and not isinstance(value, str):
            raise ConfigError(f"{source}: setting {name!r} must be a string")
        return value
    if isinstance(expected, (int, float)):
        least = 0 if name in ZERO_MEANS_OFF else 1e-9
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < least:
            kind = "a number, 0 or more" if name in ZERO_MEANS_OFF else "a positive number"
            raise ConfigError(f"{source}: setting {name!r} must be {kind}")
        if name == "passage_max_chars" and value < MIN_PASSAGE_CHARS:
            raise ConfigError(
                f"{source}: setting 'passage_max_chars' is {value}, under the least of {MIN_PASSAGE_CHARS}",
                hint=f"set passage_max_chars to {MIN_PASSAGE_CHARS} or more (default {Config.passage_max_chars})",
            )
        return type(expected)(value)
    return value  # pragma: no cover - every field type is handled above


_TRUE, _FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


def _bool(name: str, value: Any, source: Path) -> bool:
    """A true/false setting: a TOML boolean, or (from the environment) true/false, yes/no, on/off, 1/0."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
        return value.strip().lower() in _TRUE
    raise ConfigError(f"{source}: setting {name!r} must be true or false", hint=f"set {name} = true or false")


def _root(value: str, source: Path) -> str:
    """A corpus root as a git pathspec relative to the repository root; "." is the whole repository."""
    hint = "give folders relative to the repository root, e.g. corpus, or . for the whole repository"
    if value.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", value):
        raise ConfigError(f"{source}: root {value!r} in `roots` is an absolute path", hint=hint)
    root = posixpath.normpath(value.strip() or ".")
    if root == ".." or root.startswith("../"):
        raise ConfigError(f"{source}: root {value!r} in `roots` leads out of the repository", hint=hint)
    return root


def config_fields() -> list[tuple[str, Any, str]]:
    """(name, default, help) for every setting, in declaration order."""
    defaults = Config()
    return [(f.name, getattr(defaults, f.name), SETTINGS_HELP[f.name]) for f in dataclasses.fields(Config)]
