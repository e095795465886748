"""The one typed configuration object, read from the corpus repository.

Settings come from `[tool.pincite]` in the repository's `pyproject.toml` or from a
`pincite.toml` at its root (the latter wins when both exist), then from `PINCITE_<NAME>`
environment variables (so a CI job can set one per run). Every field of `Config`
is a setting; its `Option` in `OPTIONS` checks a value by its kind and bounds, and carries
the help text that `docs/configuration.md` is generated from.
"""

from __future__ import annotations

import dataclasses
import math
import os
import posixpath
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from indexer.errors import ConfigError

# Below this, a cut inside a long line could not keep short words whole (indexer.text.chunk).
MIN_PASSAGE_CHARS = 100


@dataclass(frozen=True)
class Config:
    """Every setting of a repository, typed, at its default unless the settings files or PINCITE_* say otherwise."""

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
    # 20 MB of document pages before their chrome was cut by a fifth: the same pages a part, the same memory.
    site_search_part_mb: float = 16.0
    template_dir: str | None = None
    pdf_max_pages: int = 2000
    pdf_page_images: int = 100
    pdf_page_budget: float = 2.0
    ocr_languages: tuple[str, ...] = ("eng",)
    extract_timeout_seconds: float = 60.0
    discovery_indexes: tuple[str, ...] = ()
    fetch_max_bytes: int = 10_000_000
    fetch_timeout_seconds: float = 30.0
    rst_role_urls: tuple[str, ...] = ()
    site_docs_roots: tuple[str, ...] = ()
    site_language: str = "en"


class Option:
    """One kind of setting: how a value from a settings file or the environment is checked (mkdocs' model).

    Each setting of `Config` has one, with its help text; the rule for a kind of value is
    written once here, and a setting names its bounds rather than being a special case.
    """

    def __init__(self, help: str) -> None:
        self.help = help

    def check(self, name: str, value: Any, source: Path) -> Any:
        raise NotImplementedError

    def from_env(self, variable: str, raw: str) -> Any:
        """The value of `PINCITE_<NAME>=raw` before `check` (a string unless the kind says otherwise)."""
        return raw


class Number(Option):
    """A finite number in [minimum, maximum]; `whole` for a count (bytes, pages, characters)."""

    def __init__(
        self, help: str, *, minimum: float, maximum: float, whole: bool = False, zero_off: bool = False
    ) -> None:
        super().__init__(help)
        self.minimum, self.maximum, self.whole, self.zero_off = minimum, maximum, whole, zero_off

    def check(self, name: str, value: Any, source: Path) -> Any:
        kind = "whole number" if self.whole else "number"
        least = f"from {_shown(self.minimum)}" if self.minimum > 0 else "above 0"
        bounds = f"a {kind} {least} to {_shown(self.maximum)}"
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if self.zero_off and number and value == 0:
            return 0  # a choice: this feature is off
        if not number or (isinstance(value, float) and not math.isfinite(value)) or value <= 0:
            wanted = "0 or more (0 turns it off)" if self.zero_off else "a positive number"
            raise ConfigError(
                f"{source}: setting {name!r} must be {wanted} ({bounds}), not {_quoted(value)}",
                hint=f"set {name} to {bounds}",
            )
        if self.whole and value != int(value):
            raise ConfigError(f"{source}: setting {name!r} must be a whole number, not {value!r}", hint=bounds)
        if value < self.minimum:
            raise ConfigError(
                f"{source}: setting {name!r} is {value}, under the least of {_shown(self.minimum)}",
                hint=f"set {name} to {_shown(self.minimum)} or more",
            )
        if value > self.maximum:
            raise ConfigError(
                f"{source}: setting {name!r} is {value}, over the most of {_shown(self.maximum)}",
                hint=f"set {name} to {_shown(self.maximum)} or less",
            )
        return int(value) if self.whole else float(value)

    def from_env(self, variable: str, raw: str) -> Any:
        try:
            return int(raw) if self.whole else float(raw)
        except ValueError as exc:
            raise ConfigError(
                f"environment variable {variable}={raw[:100]!r} is not a number", hint=f"set {variable} to a number"
            ) from exc


class Flag(Option):
    """True or false: a TOML boolean, or (from the environment) true/false, yes/no, on/off, 1/0."""

    def check(self, name: str, value: Any, source: Path) -> Any:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
            return value.strip().lower() in _TRUE
        raise ConfigError(f"{source}: setting {name!r} must be true or false", hint=f"set {name} = true or false")


class Text(Option):
    """A string without control characters; `optional` ones may be left out (None)."""

    def __init__(self, help: str, *, optional: bool = False, max_chars: int = 4096) -> None:
        super().__init__(help)
        self.optional, self.max_chars = optional, max_chars

    def check(self, name: str, value: Any, source: Path) -> Any:
        if value is None and self.optional:
            return None
        if not isinstance(value, str):
            raise ConfigError(f"{source}: setting {name!r} must be a string", hint=f'set {name} = "..."')
        if len(value) > self.max_chars or any(ord(c) < 0x20 or ord(c) == 0x7F for c in value):
            raise ConfigError(
                f"{source}: setting {name!r} must be one line of at most {self.max_chars:,} characters "
                "without control characters",
                hint=f"correct {name} in the settings",
            )
        return value


class Revision(Text):
    """A git revision (a commit, tag or branch name): never one git could read as an option."""

    def check(self, name: str, value: Any, source: Path) -> Any:
        value = super().check(name, value, source)
        if value is not None and (value.startswith("-") or not value.strip() or any(c.isspace() for c in value)):
            raise ConfigError(
                f"{source}: setting {name!r} = {value!r} is not a revision", hint=f"set {name} to a commit or tag"
            )
        return value


class SiteUrl(Text):
    """Empty, or an absolute http(s) URL: it starts every permalink a page prints."""

    def check(self, name: str, value: Any, source: Path) -> Any:
        value = super().check(name, value, source)
        if value:
            parts = urlsplit(value) if _URL_CHARS.fullmatch(value) else None
            if parts is None or parts.scheme.lower() not in ("http", "https") or not parts.hostname:
                raise ConfigError(
                    f"{source}: setting {name!r} = {value!r} is not an http(s) URL",
                    hint=f"set {name} to the site's address, e.g. https://example.org/corpus/, or leave it empty",
                )
        return value


# A BCP 47 tag as pincite writes it: a language, then optionally a script and a region.
_LANGUAGE_TAG = re.compile(r"^([A-Za-z]{2,3})(?:[-_]([A-Za-z]{4}))?(?:[-_]([A-Za-z]{2}|[0-9]{3}))?$")


def language_tag(value: str) -> str | None:
    """`value` as a BCP 47 tag (`zh_cn` is `zh-CN`, `zh-hans` is `zh-Hans`), or None when it is not one."""
    match = _LANGUAGE_TAG.match(value.strip())
    if not match:
        return None
    language, script, region = match.groups()
    return language.lower() + (f"-{script.title()}" if script else "") + (f"-{region.upper()}" if region else "")


class LanguageTag(Text):
    """A language as a BCP 47 tag (`en`, `de`, `zh-CN`): the language of the pages that name none."""

    def check(self, name: str, value: Any, source: Path) -> Any:
        tag = language_tag(super().check(name, value, source))
        if tag is None:
            raise ConfigError(
                f"{source}: setting {name!r} = {value!r} is not a language tag",
                hint=f'set {name} to a BCP 47 tag such as "en", "de" or "zh-CN"',
            )
        return tag


class Strings(Option):
    """A list of strings (one string is a list of one); from the environment, split at commas or spaces."""

    def check(self, name: str, value: Any, source: Path) -> Any:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and "\0" not in v for v in value):
            raise ConfigError(f"{source}: setting {name!r} must be a list of strings")
        return tuple(value)

    def from_env(self, variable: str, raw: str) -> Any:
        return [item for item in re.split(r"[,\s]+", raw) if item]


class Roots(Strings):
    """Corpus roots: folders relative to the repository root."""

    def check(self, name: str, value: Any, source: Path) -> Any:
        return tuple(_root(v, source) for v in super().check(name, value, source))


class RoleUrls(Strings):
    """`role=URL pattern` entries: the pattern an http(s) URL, or empty for no link."""

    def check(self, name: str, value: Any, source: Path) -> Any:
        entries = super().check(name, value, source)
        for entry in entries:
            _role_url_entry(entry, source)
        return entries


# A Tesseract language data name: `eng`, `deu`, `chi_sim`, `deu_latf` (`+` joins them on its command line).
_OCR_LANGUAGE = re.compile(r"[a-z]{3}(?:_[a-z]+)?")


class OcrLanguages(Strings):
    """Tesseract language data names (`eng`, `deu`, `chi_sim`); an empty list turns OCR off."""

    def check(self, name: str, value: Any, source: Path) -> Any:
        languages = super().check(name, value, source)
        for language in languages:
            if not _OCR_LANGUAGE.fullmatch(language):
                raise ConfigError(
                    f"{source}: setting {name!r} holds {_quoted(language)}, which is not a Tesseract language name",
                    hint=f'set {name} to names of Tesseract language data, e.g. ["eng", "deu"] '
                    "(`tesseract --list-langs` lists the installed ones), or [] to turn OCR off",
                )
        if len(set(languages)) != len(languages):
            raise ConfigError(f"{source}: setting {name!r} names a language twice", hint=f"name each once in {name}")
        return languages


OPTIONS: dict[str, Option] = {
    "roots": Roots("Folders (relative to the repository root) whose files are indexed; `.` is the whole repository."),
    "history_start": Revision(
        "First commit (any rev) of the first-parent history to index; empty means the whole history.", optional=True
    ),
    "max_file_bytes": Number(
        "Files larger than this are skipped with a message.", minimum=1, maximum=10**12, whole=True
    ),
    "passage_max_chars": Number(
        f"Upper bound on a passage's length in code points (at least {MIN_PASSAGE_CHARS}); "
        "a build under another value cuts every version again.",
        minimum=MIN_PASSAGE_CHARS,
        maximum=10**7,
        whole=True,
    ),
    "index_path": Text("Where the SQLite index lives, relative to the repository root."),
    "site_dir": Text("Output folder of the static site, relative to the repository root."),
    "site_url": SiteUrl("Public base URL of the site; permalinks start with it."),
    "site_title": Text("Title shown on the site's pages."),
    "site_language": LanguageTag(
        "Language of the documents whose front matter and folders name none (a BCP 47 tag); search stems by it."
    ),
    "site_publish_index": Flag(
        "Also publish the index file in the site, as `pincite.sqlite` (it is larger than the site)."
    ),
    "site_search_delta_share": Number(
        "Share of the document pages that may change (be added, edited or removed) after "
        "the base search bundle was made before a build indexes every page into a new base; until then a build "
        "indexes only the changed pages, into the delta bundle.",
        minimum=0.0,
        maximum=1.0,
    ),
    "site_search_part_mb": Number(
        "Megabytes of document pages one Pagefind run indexes at most: Pagefind holds its "
        "whole index in memory, some 11–15 bytes per byte of page, so a larger base search bundle is made in parts "
        "of about this size, one after another, that the browser searches as one (a search downloads a little more).",
        minimum=0.0,
        maximum=100_000.0,
    ),
    "template_dir": Text("A folder of Jinja2 templates that override the shipped ones.", optional=True),
    "pdf_max_pages": Number("PDFs with more pages are skipped as oversized.", minimum=1, maximum=10**7, whole=True),
    "pdf_page_images": Number(
        "Pages of each PDF the site shows as printed, with the cited words lit: this many pages get an image "
        "and word boxes (10–40 KB a page of text), the pages citations name first; 0 turns page images off.",
        minimum=1,
        maximum=10**6,
        whole=True,
        zero_off=True,
    ),
    "ocr_languages": OcrLanguages(
        "Languages Tesseract reads PDF pages without a text layer (scans) in, as the names of its "
        "language data (`eng`, `deu`, `chi_sim`; Debian's `tesseract-ocr-<name>` packages install them). They are "
        "part of the extractor identity of the PDFs OCR read, not of PDFs whose every page has text. An empty "
        "list turns OCR off."
    ),
    "pdf_page_budget": Number(
        "Most bytes the pages as printed of one PDF (images, word boxes) take in the site, as a multiple of "
        "the PDF's own bytes, spent on the pages citations name first: pages past the last that fits are shown "
        "as text only, and the version page and the build say so. A page of text costs some 10–40 KB, so a small "
        "PDF of dense text may show only its cited pages, or none; 0: no limit.",
        minimum=0.01,
        maximum=10_000.0,
        zero_off=True,
    ),
    "extract_timeout_seconds": Number(
        "Most CPU time extracting one document may use, its OCR (Tesseract) included. CPU, not time on the "
        "clock: a loaded machine indexes what an idle one does. A document over it is skipped and remembered "
        "until a limit changes or `--retry-skipped`. A wall-clock backstop of 20 times this (at least 10 "
        "minutes) stops an extraction that waits without using CPU; that one is tried again by the next build.",
        minimum=0.0,
        maximum=86_400.0,
    ),
    "discovery_indexes": Strings("Other pincite index files searched by the local discovery provider."),
    "fetch_max_bytes": Number(
        "Largest response body `pincite snapshot` accepts.", minimum=1, maximum=10**12, whole=True
    ),
    "fetch_timeout_seconds": Number("Total time limit for one snapshot fetch.", minimum=0.0, maximum=86_400.0),
    "rst_role_urls": RoleUrls(
        "Where a reStructuredText role's target points when no document of the site is that "
        "target, as `role=URL pattern` entries: `{target}` is the target as written, `{number}` (or `{number:04d}`, "
        "zero-padded) its number; e.g. `pep=https://peps.python.org/pep-{number:04d}/` (the default for `pep`; "
        "`rfc` points at the IETF's RFC pages). `role=` with no URL shows the role's text without a link."
    ),
    "site_docs_roots": Strings(
        "Folders whose documents are a documentation site's pages (VitePress, MkDocs, Docusaurus): "
        "there a link starting with `/` starts at the folder, not at the repository's root. Empty: found from "
        "`.vitepress/config.*` (its parent folder), `mkdocs.yml` (the `docs` folder beside it) and "
        "`docusaurus.config.*` (its folder) under the roots."
    ),
}
SETTINGS_HELP: dict[str, str] = {name: option.help for name, option in OPTIONS.items()}

# What a URL setting may hold: printable ASCII but for quotes, angle brackets and backslashes.
_URL_CHARS = re.compile(r"[!#-&(-;=?-\[\]-~]+")


def _shown(bound: float) -> str:
    return f"{int(bound):,}" if float(bound).is_integer() else f"{bound:g}"


def _quoted(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# Paths pincite writes to (or loads templates from). A committed settings file must keep them
# inside the repository: building someone's branch must not overwrite files elsewhere.
CONFINED_PATHS = ("index_path", "site_dir", "template_dir")


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
    for name, option in OPTIONS.items():
        variable = ENV_PREFIX + name.upper()
        raw = environ.get(variable, "").strip()
        if raw:
            values[name] = option.from_env(variable, raw)
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
    clean = {name: OPTIONS[name].check(name, value, source) for name, value in values.items()}
    return dataclasses.replace(Config(), **clean)


_TRUE, _FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


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


def _role_url_entry(entry: str, source: Path) -> tuple[str, str]:
    """(role, URL pattern) of one `rst_role_urls` entry; the pattern is http(s) or empty."""
    role, sign, pattern = entry.partition("=")
    role, pattern = role.strip().lower(), pattern.strip()
    if not sign or not re.fullmatch(r"[a-z][a-z0-9:+.-]*", role) or (pattern and not re.match(r"https?://", pattern)):
        raise ConfigError(
            f"{source}: rst_role_urls entry {entry!r} is not `role=URL pattern`",
            hint="write e.g. pep=https://peps.python.org/pep-{number:04d}/ (an http or https URL), or pep= for no link",
        )
    return role, pattern


def role_urls(config: Config, defaults: Mapping[str, str]) -> dict[str, str]:
    """The outside URL patterns of reST roles: the defaults, with the configured entries over them."""
    patterns = dict(defaults)
    for entry in config.rst_role_urls:
        role, pattern = _role_url_entry(entry, Path("rst_role_urls"))
        if pattern:
            patterns[role] = pattern
        else:
            patterns.pop(role, None)
    return patterns
