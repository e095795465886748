"""What `git diff` shows a person for PDF and HTML files: the text pincite indexes.

`pincite init` marks the extracted file types with a `diff=pincite` attribute in
`.gitattributes` and points git's `diff.pincite.textconv` at `pincite textconv`, which
prints a file's extracted text. Git then diffs exactly the text `verify` diffs (verify
itself needs none of this: it diffs extracted-text blobs with pinned options).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from indexer.errors import ExtractionError, RepositoryError, UsageError
from indexer.extract import cache as extract_cache
from indexer.extract import registry as extract_mod
from indexer.extract.registry import ExtractedText
from indexer.shapes import TextconvJson, TextconvSetupJson
from indexer.vcs.repo import GitRepo

DRIVER = "pincite"
DEFAULT_COMMAND = "pincite textconv --marker-on-error"
ATTRIBUTES_HEADER = "# pincite: `git diff` shows the extracted text of these files (written by `pincite init`)"


def extracted_file(file: Path, repo_dir: Path | None = None) -> ExtractedText | None:
    """The extracted text of a file on disk, or None when its type is not extracted.

    `repo_dir`, when inside a git repository, supplies the cache and the configured limits.
    """
    return _extract(file, _read(file), repo_dir)


def textconv_json(file: Path, repo_dir: Path | None = None) -> TextconvJson:
    """`pincite textconv --json`: the extracted text of a PDF or HTML file with its identity, title and pages."""
    extracted = extracted_file(file, repo_dir)
    if extracted is None:
        raise ExtractionError(f"{file}: not an extracted file type", hint="textconv --json takes PDF and HTML")
    return {
        "path": str(file),
        "identity": extracted.identity,
        "title": extracted.title,
        "page_starts": list(extracted.page_starts),
        "notes": list(extracted.notes),
        "text": extracted.text,
    }


def textconv_bytes(file: Path, repo_dir: Path | None = None) -> bytes:
    """What git's textconv gets: the extracted text (UTF-8), or the bytes unchanged for other types."""
    data = _read(file)
    extracted = _extract(file, data, repo_dir)
    return data if extracted is None else extracted.text.encode("utf-8", "surrogatepass")


def _read(file: Path) -> bytes:
    try:
        return file.read_bytes()
    except OSError as exc:
        raise UsageError(f"{file}: cannot read ({exc.strerror})", hint="give the path of a readable file") from exc


def _extract(file: Path, data: bytes, repo_dir: Path | None) -> ExtractedText | None:
    extractor = extract_mod.extractor_for(str(file))
    if extractor.source_class == "text":
        return None
    root = _repo_root(repo_dir) if repo_dir is not None else None
    return extract_cache.extract_bytes(root, extract_cache.blob_sha(data), lambda: data, str(file))


def _repo_root(directory: Path) -> Path | None:
    try:
        with GitRepo(directory) as repo:
            return repo.root
    except RepositoryError:
        return None


@dataclass(frozen=True)
class InitResult:
    """What `pincite init` did for `git diff`: the attribute lines it added and the textconv command set."""

    attributes_file: Path
    added_lines: tuple[str, ...]
    textconv: str

    def to_json(self) -> TextconvSetupJson:
        return {
            "attributes_file": str(self.attributes_file),
            "added_lines": list(self.added_lines),
            "diff.pincite.textconv": self.textconv,  # the setting of DRIVER's textconv
        }


def attribute_lines() -> list[str]:
    """`.gitattributes` lines for every extracted file type (both letter cases: patterns are case-sensitive)."""
    patterns: list[str] = []
    for extractor in extract_mod.registered():
        if extractor.source_class == "text":
            continue
        for extension in extractor.extensions:
            patterns += [f"*{extension.lower()}", f"*{extension.upper()}"]
    return [f"{pattern} diff={DRIVER}" for pattern in dict.fromkeys(patterns)]


def init_repo(repo: GitRepo, command: str = DEFAULT_COMMAND) -> InitResult:
    """Write the `.gitattributes` lines (once) and set `diff.pincite.textconv` in the repository's config."""
    if repo.run_text("rev-parse", "--is-bare-repository").strip() == "true":
        raise RepositoryError(
            f"{repo.root}: a bare repository has no working tree for .gitattributes",
            hint="run `pincite init` in a clone with a working tree",
        )
    if not command.strip():
        raise UsageError("the textconv command is empty", hint=f"omit --command to use {DEFAULT_COMMAND!r}")
    attributes = repo.root / ".gitattributes"
    existing = attributes.read_text(encoding="utf-8") if attributes.exists() else ""
    present = {" ".join(line.split()) for line in existing.splitlines()}
    missing = [line for line in attribute_lines() if line not in present]
    if missing:
        block = ([ATTRIBUTES_HEADER] if ATTRIBUTES_HEADER not in present else []) + missing
        separator = "" if not existing or existing.endswith("\n") else "\n"
        attributes.write_text(existing + separator + "\n".join(block) + "\n", encoding="utf-8")
    repo.run("config", "--local", f"diff.{DRIVER}.textconv", command)
    return InitResult(attributes, tuple(missing), command)
