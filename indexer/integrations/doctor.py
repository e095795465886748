"""`pincite doctor`: what this machine and this repository need before pincite works well.

Each check is a line with a status (`ok` or `warn`), what was found and, for a warning, the
command or setting that fixes it. Doctor never fails on a problem it reports: it runs
outside a repository, without an index and without the optional extras, and says so.
A missing optional reader (PDF, HTML, OCR, Asciidoctor) is a warning only when the corpus
holds files it reads, counted from one listing of HEAD's tree under the roots; outside a
repository, where there is no corpus to count, it is always one.
"""

from __future__ import annotations

import platform
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from indexer import __version__
from indexer.config import Config, load_config
from indexer.errors import SHALLOW_HINT, PinciteError
from indexer.extract import ocr, pdf
from indexer.extract import registry as extract_mod
from indexer.extract.base import library_version
from indexer.index.store import SCHEMA_VERSION, IndexReader
from indexer.shapes import DoctorCheckJson, DoctorJson
from indexer.text.kinds import text_format
from indexer.vcs.repo import GitRepo, git_version

OK = "ok"
WARN = "warn"
# `rev-parse --end-of-options`, which pincite passes before every user-given revision.
MIN_GIT = (2, 24)
# One probe file per optional extractor: the registry picks extractors by extension.
EXTRA_PROBES = (("pdf", "probe.pdf"), ("html", "probe.html"))


@dataclass(frozen=True)
class Check:
    """One thing `pincite doctor` looked at: ok, warning or error, with the fix."""

    name: str
    status: str
    detail: str
    hint: str = ""

    def to_json(self) -> DoctorCheckJson:
        return {"name": self.name, "status": self.status, "detail": self.detail, "hint": self.hint}


@dataclass(frozen=True)
class Report:
    """Everything `pincite doctor` looked at."""

    checks: tuple[Check, ...]

    @property
    def ok(self) -> bool:
        return all(check.status == OK for check in self.checks)

    def to_json(self) -> DoctorJson:
        return {"ok": self.ok, "checks": [check.to_json() for check in self.checks]}


def diagnose(repo_path: Path | str = ".", index_path: Path | str | None = None) -> Report:
    """Run every check against the repository at `repo_path` (which need not be one)."""
    repo: GitRepo | None = None
    config, problems = Config(), []
    try:
        repo = GitRepo(repo_path)
        config = load_config(repo.root)
    except PinciteError as exc:
        name, fix = ("repository", "") if repo is None else ("config", "fix the pincite settings")
        problems.append(Check(name, WARN, exc.message, exc.hint or fix))
    corpus = corpus_kinds(repo, config) if repo is not None else None
    checks = [_check_pincite(), _check_git(), _check_text_readers(), _check_asciidoctor(corpus)]
    checks += [*_check_extras(corpus), _check_ocr(corpus), _check_pagefind(), *problems]
    if repo is None:
        return Report(tuple(checks))
    checks.append(_check_history(repo))
    checks += _check_ocr_languages(config)
    checks.append(_check_textconv(repo, config))
    target = Path(index_path) if index_path else repo.root / config.index_path
    checks.append(_check_index(repo, target))
    checks.append(_check_site_url(config))
    return Report(tuple(checks))


def _check_pincite() -> Check:
    return Check("pincite", OK, f"pincite {__version__} on Python {platform.python_version()}")


def _check_git() -> Check:
    found = git_version()
    if found is None:
        return Check("git", WARN, "git was not found on PATH", "install git 2.24 or newer")
    shown = ".".join(map(str, found))
    if found[:2] < MIN_GIT:
        return Check("git", WARN, f"git {shown} is older than 2.24", "upgrade git to 2.24 or newer")
    return Check("git", OK, f"git {shown}")


def _check_text_readers() -> Check:
    """The text class's readers: which formats get structure-aware passages and which view."""
    rst = f"reStructuredText (sections, directives; rendered by docutils {library_version('docutils')})"
    readers = [
        "Markdown (blocks, rendered)",
        rst,
        "AsciiDoc (sections, delimited blocks; rendered by Asciidoctor when installed, else source view with outline)",
        "any other non-binary file (paragraphs; source view)",
    ]
    return Check("readers", OK, "text: " + "; ".join(readers) + "; encodings declared in .gitattributes")


def corpus_kinds(repo: GitRepo, config: Config) -> Counter[str] | None:
    """How many files at HEAD under the roots each optional reader reads ("pdf", "html", "asciidoc").

    One `git ls-tree` of HEAD; the registry says which extractor reads a path, as in a build.
    None when there is nothing to count (no commits yet), so the readers' checks warn as outside a repository.
    """
    if not repo.has_commits():
        return None
    readers = {extract_mod.extractor_for(probe).name: extra for extra, probe in EXTRA_PROBES}
    found: Counter[str] = Counter()
    for entry in repo.tree_entries("HEAD", config.roots):
        extra = readers.get(extract_mod.extractor_for(entry.path).name)
        if extra is not None:
            found[extra] += 1
        elif text_format(entry.path) == "asciidoc":
            found["asciidoc"] += 1
    return found


def _none_in_corpus(corpus: Counter[str] | None, kind: str) -> bool:
    return corpus is not None and corpus[kind] == 0


def _files(corpus: Counter[str] | None, extra: str) -> str:
    """'3 .pdf file(s) in the corpus' when the corpus was counted, else '.pdf files'."""
    return f".{extra} files" if corpus is None else f"{corpus[extra]:,} .{extra} file(s) in the corpus"


def _check_asciidoctor(corpus: Counter[str] | None) -> Check:
    """AsciiDoc's rendered view needs Asciidoctor (docs/design.md#d18); without it pages show the source."""
    from indexer.site import asciidoc_view

    if not asciidoc_view.available():
        if _none_in_corpus(corpus, "asciidoc"):
            detail = "no AsciiDoc files in the corpus at HEAD; Asciidoctor (not installed) would render them"
            return Check("asciidoctor", OK, detail)
        detail = "AsciiDoc pages show their source (with an outline) only: Asciidoctor is not installed"
        return Check("asciidoctor", WARN, detail, asciidoc_view.INSTALL_HINT)
    return Check("asciidoctor", OK, "AsciiDoc pages are rendered by Asciidoctor, in its secure safe mode")


def _check_extras(corpus: Counter[str] | None) -> list[Check]:
    checks = []
    for extra, probe in EXTRA_PROBES:
        name = f"extra:{extra}"
        extractor = extract_mod.extractor_for(probe)
        hint = extractor.install_hint or f"pip install 'pincite[{extra}]'"
        if extractor.source_class == "text":
            checks.append(Check(name, WARN, f"no extractor handles .{extra} files in this pincite", "upgrade pincite"))
        elif not extractor.available() and _none_in_corpus(corpus, extra):
            detail = f"no .{extra} files in the corpus at HEAD; to index some, the extractor is needed: {hint}"
            checks.append(Check(name, OK, detail))
        elif not extractor.available():
            detail = f"{_files(corpus, extra)} are skipped: the extractor is not installed"
            checks.append(Check(name, WARN, detail, hint))
        elif extra == "pdf" and not pdf.decrypts_aes():
            detail = ".pdf files are extracted, but AES-encrypted ones are refused: cryptography is not installed"
            checks.append(Check(name, WARN, detail, f"{pdf.INSTALL_HINT} (it installs pypdf[crypto])"))
        else:
            checks.append(Check(name, OK, f".{extra} files are extracted ({extractor.identity()})"))
    return checks


def _check_ocr(corpus: Counter[str] | None) -> Check:
    """Tesseract, optional: its version and the language data installed (scanned PDF pages need it)."""
    if not ocr.available() and _none_in_corpus(corpus, "pdf"):
        return Check("ocr", OK, "no .pdf files in the corpus at HEAD: no scanned pages to recognize")
    if not ocr.available():
        return Check("ocr", WARN, "image-only PDF pages are skipped: Tesseract (or pypdfium2) is not installed",
                     ocr.INSTALL_HINT)  # fmt: skip
    languages = ", ".join(ocr.installed_languages()) or "none"
    return Check("ocr", OK, f"{ocr.engine_version()}: image-only PDF pages are recognized; language data: {languages}")


def _check_ocr_languages(config: Config) -> list[Check]:
    """The `ocr_languages` setting against the language data Tesseract has (nothing to say without Tesseract)."""
    if not ocr.available():
        return []
    if not config.ocr_languages:
        return [Check("ocr languages", OK, "OCR is off (ocr_languages = []): scanned PDF pages are not read")]
    missing = [lang for lang in config.ocr_languages if lang not in ocr.installed_languages()]
    if missing:
        packages = " ".join(f"tesseract-ocr-{lang.replace('_', '-')}" for lang in missing)
        return [
            Check("ocr languages", WARN, f"ocr_languages names {', '.join(missing)}, which Tesseract has no data for",
                  f"apt-get install {packages} (Debian), or remove them from ocr_languages")
        ]  # fmt: skip
    return [Check("ocr languages", OK, f"scanned PDF pages are read in {', '.join(config.ocr_languages)}")]


def _check_pagefind() -> Check:
    # The site build runs Pagefind the same way; a missing binary fails the build.
    try:
        command = [sys.executable, "-m", "pagefind", "--version"]
        proc = subprocess.run(command, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        proc = subprocess.CompletedProcess([], 1, "", str(exc))
    found = proc.stdout.strip()
    if proc.returncode != 0 or not found:
        hint = "pip install 'pagefind[extended]' (or build with --no-site)"
        return Check("pagefind", WARN, "Pagefind does not run: the site cannot be built", hint)
    return Check("pagefind", OK, f"{found} (search in the site)")


def _check_history(repo: GitRepo) -> Check:
    if not repo.has_commits():
        return Check("history", WARN, f"{repo.root}: no commits yet", "commit your corpus, then run `pincite build`")
    depth = int(repo.run_text("rev-list", "--count", "--first-parent", "HEAD").strip())
    if repo.is_shallow():
        return Check("history", WARN, f"shallow clone: only {depth} commit(s) of history", SHALLOW_HINT)
    return Check("history", OK, f"full history: {depth} commit(s) on the first-parent line of HEAD")


def _check_textconv(repo: GitRepo, config: Config) -> Check:
    command = repo.run("config", "--get", "diff.pincite.textconv", check=False).decode(errors="replace").strip()
    hint = "run `pincite init` so that `git diff` shows PDF and HTML changes as text"
    if not command:
        return Check("textconv", WARN, "diff.pincite.textconv is not set: git diff shows PDF and HTML as binary", hint)
    probe = f"{config.roots[0] if config.roots else 'corpus'}/probe.pdf"
    attributes = repo.run_text("check-attr", "diff", "--", probe).strip()
    if not attributes.endswith(": pincite"):
        detail = f"diff.pincite.textconv is set but .gitattributes does not use it for {probe}"
        return Check("textconv", WARN, detail, hint)
    return Check("textconv", OK, f"diff.pincite.textconv = {command}")


def _check_index(repo: GitRepo, target: Path) -> Check:
    if not target.exists():
        return Check("index", WARN, f"{target}: no index yet", "run `pincite build`")
    try:
        reader = IndexReader(target)
    except PinciteError as exc:
        return Check("index", WARN, exc.message, exc.hint or "run `pincite build`")
    try:
        built = reader.meta("built_commit") or ""
    finally:
        reader.close()
    head = repo.resolve_commit("HEAD") if repo.has_commits() else ""
    detail = f"{target}: schema {SCHEMA_VERSION}, built at {built[:12] or 'unknown commit'}"
    if built and head and built != head:
        return Check("index", WARN, f"{detail}; HEAD is {head[:12]}", "run `pincite build` to index HEAD")
    return Check("index", OK, detail)


def _check_site_url(config: Config) -> Check:
    if not config.site_url:
        return Check(
            "site_url",
            WARN,
            "site_url is not set: permalinks are relative to the site folder",
            "set site_url in [tool.pincite] or pincite.toml, or PINCITE_SITE_URL in CI",
        )
    if not re.match(r"^https?://", config.site_url):
        return Check("site_url", WARN, f"site_url {config.site_url!r} is not an http(s) URL", "give the full URL")
    return Check("site_url", OK, f"site_url = {config.site_url}")
