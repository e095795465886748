"""`pincite build`: one commit of a corpus repository → the SQLite index (and the site).

The pipeline, in order: resolve the commit → walk the first-parent history into path
version intervals → extract and chunk every (blob, extractor identity, form) the index does not
have yet → write the index atomically → render the site.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from indexer.config import Config, load_config
from indexer.errors import MISSING_BLOB_HINT, RepositoryError
from indexer.extract import attributes
from indexer.extract import registry as extract_mod
from indexer.extract.attributes import UNDECLARED, Declared
from indexer.index.documents import version_form
from indexer.index.prepare import NotThisTime, Outcome, prepared_in_order
from indexer.index.store import IndexWriter, PathVersion, build_lock, check_index_target, index_writing
from indexer.index.update import (
    HeadSummary,
    UpdatePlan,
    changed_paths_json,
    history_key,
    plan_update,
    used_extractors,
)
from indexer.progress import SILENT, Progress
from indexer.shapes import SiteJson
from indexer.state import make_parent
from indexer.text.kinds import SNAPSHOT_ROOT, is_snapshot, is_snapshot_meta
from indexer.vcs.repo import (
    MISSING_SIZE,
    MODE_FILE,
    MODE_GITLINK,
    MODE_SYMLINK,
    CommitInfo,
    GitRepo,
    TreeEntry,
    runs_along,
)

if TYPE_CHECKING:  # the JSON shapes are annotations only: importing them costs startup time
    from indexer.shapes import BuildSummaryJson

OPTIONAL_ROOTS = (SNAPSHOT_ROOT,)  # a corpus may have no snapshots yet


@dataclass(frozen=True)
class Skipped:
    """A file the build did not index, why, and what would let it."""

    path: str
    reason: str
    hint: str = ""


@dataclass
class BuildSummary:
    """What a build did: the commit, counts of commits, documents, versions and passages, what it skipped."""

    commit: str
    commits: int = 0
    documents: int = 0
    versions: int = 0
    # Versions, (blob, identity, form), not blobs: one blob at paths of two forms (a .md and a .txt, a
    # corpus page and its snapshot) is extracted, and counted, once per form (docs/indexing.md, step 2).
    extracted: int = 0
    reused: int = 0
    failures_reused: int = 0  # of `reused`: versions that failed before, under the same identity and limits
    passages: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    index_path: str = ""
    site_dir: str | None = None
    site: SiteJson | None = None  # the site stage's counts (pages rendered / reused, ...)
    stages: dict[str, float] = field(default_factory=dict)  # seconds per pipeline stage, for benchmarks
    # The paths whose interval rows this build changed (the new commits touched them), when it
    # updated the previous index by the new commits alone; None: unknown, treat every path as changed.
    # The index keeps it too (meta `changed_paths`, `indexer.index.update.read_changed_paths`).
    changed_paths: tuple[str, ...] | None = None

    def to_json(self) -> BuildSummaryJson:
        return {
            "commit": self.commit,
            "commits": self.commits,
            "documents": self.documents,
            "versions": self.versions,
            "extracted": self.extracted,
            "reused": self.reused,
            "failures_reused": self.failures_reused,
            "passages": self.passages,
            "skipped": [{"path": s.path, "reason": s.reason, "hint": s.hint} for s in self.skipped],
            "warnings": self.warnings,
            "seconds": round(self.seconds, 3),
            "index_path": self.index_path,
            "site_dir": self.site_dir,
            "site": self.site,
            "stages": {name: round(seconds, 3) for name, seconds in self.stages.items()},
        }


@dataclass(frozen=True)
class _Kind:
    """How the build treats one tree entry: its extractor identity, or why it is skipped.

    `identities` are all those its text may be recorded under (`Extractor.identities`): a PDF
    whose pages all have text is recorded under `identity`, one with scanned pages under the
    identity of its OCR configuration.
    """

    identity: str | None
    skip_reason: str = ""
    hint: str = ""
    identities: tuple[str, ...] = ()
    form: str = ""  # what the path and the settings decide of its row (`documents.version_form`)


def build_index(
    repo: GitRepo,
    rev: str = "HEAD",
    *,
    index_path: Path | str | None = None,
    config: Config | None = None,
    progress: Progress | None = None,
    retry_skipped: bool = False,
) -> BuildSummary:
    """Index commit `rev` of `repo` (its history included) into the index file; return what was done.

    The site is a later stage (`indexer.site.builder.render_site`); `indexer.api.build` runs both.
    """
    started = time.monotonic()
    # A path given here is the caller's explicit choice: it overrides the settings file's.
    config = config or load_config(repo.root, {"index_path": str(index_path) if index_path else None})
    tip = repo.resolve_commit(rev)
    target = Path(index_path) if index_path else repo.root / config.index_path
    check_index_target(target)  # before any work, not after a long build
    summary = BuildSummary(commit=tip)
    progress = progress or SILENT
    progress.stage("reading history")
    with _stage(summary, "prepare"):
        _check_roots(repo, tip, config, summary)
        dirty = repo.dirty_paths(config.roots)
        if dirty:
            summary.warnings.append(
                f"{len(dirty)} uncommitted change(s) under {', '.join(config.roots)} are not indexed "
                f"(pincite reads commit {tip[:12]}, not the working tree), e.g. {dirty[0]}"
            )
        start = repo.resolve_commit(config.history_start) if config.history_start else None
    with index_writing(target):
        make_parent(target)
        with build_lock(target):
            writer = IndexWriter(target)
            try:
                with _stage(summary, "prepare"):

                    def key(used: Sequence[str]) -> str:
                        return history_key(repo, config, start, _failures_key(config), used)

                    plan = plan_update(repo, writer, key, tip, retry_skipped=retry_skipped)
                    commits = repo.first_parent_line(tip, start) if plan is None else []
                if plan is None:
                    _write_index(repo, config, commits, writer, summary, progress, retry_skipped, key)
                else:
                    summary.changed_paths = _update_index(repo, config, plan, tip, writer, summary, progress, key)
                writer.commit(optimize=not writer.reused_file or summary.extracted > 1000)
            except BaseException:
                writer.abort()
                raise
            finally:
                summary.stages.update(writer.timings)
    summary.index_path = str(target)
    empty = nothing_indexed(summary)
    if empty is not None:
        summary.warnings.append(empty.message)
    summary.seconds = time.monotonic() - started
    return summary


class _stage:  # noqa: N801 (used as a function: `with _stage(summary, "history"):`)
    """Add the time a block takes to `summary.stages[name]`.

    A class, not a generator-based context manager (its overhead was visible when it timed each
    blob); the blobs' reads and writes are summed by `_extract` itself.
    """

    def __init__(self, summary: BuildSummary, name: str) -> None:
        self.stages, self.name = summary.stages, name

    def __enter__(self) -> None:
        self.started = time.monotonic()

    def __exit__(self, *exc: object) -> None:
        self.stages[self.name] = self.stages.get(self.name, 0.0) + time.monotonic() - self.started


def _check_roots(repo: GitRepo, tip: str, config: Config, summary: BuildSummary) -> None:
    found = repo.entries_at(tip, [root for root in config.roots if root != "."])  # one git process for all
    for root in config.roots:
        if root == ".":  # the whole repository: its root tree always exists
            continue
        entry = found.get(root)
        if entry is None or entry.mode != "tree":
            if root in OPTIONAL_ROOTS:
                continue
            what = "does not exist" if entry is None else "is not a folder"
            raise RepositoryError(
                f"corpus root {root!r} {what} at commit {tip[:12]}",
                hint="commit documents under it, or set `roots` in [tool.pincite] / pincite.toml",
            )


# What `classify` found of an extractor, per extractor (its kind for an indexed entry) and per
# (extractor, form) (that kind with the form): its identities are the same for every path it
# reads, its forms few, and a build classifies every path.
_ExtractorKinds = dict[extract_mod.Extractor | tuple[extract_mod.Extractor, str], _Kind]


def classify(
    entry: TreeEntry, config: Config, declared: Declared = UNDECLARED, known: _ExtractorKinds | None = None
) -> _Kind:
    """Which extractor identity indexes this entry, or why it is skipped.

    Any name no extractor claims is text (docs/design.md#d15); whether its bytes are text
    is found when it is read, except for what the repository's attributes declare. `known`:
    the kinds of the extractors met so far, filled in (a caller classifying many paths).
    """
    if entry.mode == MODE_SYMLINK:
        return _Kind(None, "symlink (not followed)")
    if entry.mode == MODE_GITLINK:
        return _Kind(None, "submodule (not indexed)")
    if entry.mode not in MODE_FILE:
        return _Kind(None, f"unsupported entry mode {entry.mode}")
    if entry.path.rsplit("/", 1)[-1].startswith("."):
        return _Kind(None, "")  # dotfiles such as .gitkeep hold folders, not documents
    if is_snapshot_meta(entry.path):
        return _Kind(None, "")  # snapshot metadata, read beside its snapshot
    extractor = extract_mod.extractor_for(entry.path, declared.encoding)
    if extractor.source_class == "text" and declared.binary:
        return _Kind(None, "binary (declared `binary` or `-diff` in .gitattributes), not indexed as text")
    if extractor.source_class == "text" and declared.bad_label:
        return _Kind(
            None,
            f"declared encoding={declared.bad_label} in .gitattributes, which pincite cannot read as text",
            "name an ASCII-compatible encoding git knows (e.g. ISO-8859-1, cp1252, Shift_JIS), or remove it",
        )
    kind = known.get(extractor) if known is not None else None
    if kind is None:
        if not extractor.available():
            kind = _Kind(None, f"the {extractor.name} extractor is not installed", extractor.install_hint)
        else:
            kind = _Kind(extractor.identity(), identities=extractor.identities(extract_mod.Limits.from_config(config)))
        if known is not None:
            known[extractor] = kind
    if kind.identity is None:
        return kind
    # The identities are the extractor's; the form is the path's (`documents.version_form`).
    form = version_form(entry.path, kind.identity, config.passage_max_chars)
    formed = known.get((extractor, form)) if known is not None else None
    if formed is None:
        formed = dataclasses.replace(kind, form=form)
        if known is not None:
            known[extractor, form] = formed
    return formed


def _write_index(
    repo: GitRepo,
    config: Config,
    commits: list[CommitInfo],
    writer: IndexWriter,
    summary: BuildSummary,
    progress: Progress,
    retry_skipped: bool,
    history: Callable[[Sequence[str]], str],
) -> None:
    writer.forget_skipped_versions(_failures_key(config), retry=retry_skipped)
    known = writer.known_versions()
    with _stage(summary, "history"):
        intervals = _intervals(repo, config, commits)
    wanted, versions = _wanted_versions(intervals, known)
    needed = {key: value for key, value in wanted.items() if key not in versions}
    summary.reused = len(versions)
    failed = writer.skipped_version_ids()
    summary.failures_reused = sum(1 for version_id in versions.values() if version_id in failed)
    missing, hung = _extract(repo, config, writer, summary, progress, needed, versions)
    head_seq = len(commits) - 1
    head = HeadSummary()
    path_versions = _rows(intervals, versions, missing, hung, head_seq, summary, head)
    progress.stage("writing the index")
    with _stage(summary, "write_history"):
        writer.replace_history(commits, path_versions)
        writer.drop_superseded_forms()
        _summarise_head(writer, summary, head_seq, head)
        held = {pv.version_id for pv in path_versions}
        head.versions = len(held)
        head.failed_versions = len(held & writer.skipped_version_ids())
        used = used_extractors(kind.identity for _path, _entry, kind, _first, _last in intervals)
        _record_build(writer, commits[-1].sha, history(used) if not (missing or hung) else "", used, head, None)
    summary.commits = len(commits)
    summary.versions = head.versions


def _update_index(
    repo: GitRepo,
    config: Config,
    plan: UpdatePlan,
    tip: str,
    writer: IndexWriter,
    summary: BuildSummary,
    progress: Progress,
    history: Callable[[Sequence[str]], str],
) -> tuple[str, ...]:
    """The previous index plus the commits after its head: only the paths they touch are listed,
    classified and written (docs/indexing.md, step 1); the result is a cold build's. Returns the
    paths whose interval rows it changed (`BuildSummary.changed_paths`)."""
    head_seq = plan.head_seq + len(plan.fresh)
    head = plan.summary
    with _stage(summary, "history"):
        changes = repo.changes_along(plan.head, tip, config.roots)
        touched = sorted({entry.path for entries in changes.values() for entry in entries})
        open_rows = writer.open_rows(touched, plan.head_seq)
        runs, closed = _runs_after(plan, changes, {path: row for path, (row, _version) in open_rows.items()})
        intervals = _classified(repo, config, tip, runs)
    wanted, versions = _wanted_versions(intervals, writer.versions_of_blobs([e.sha for _p, e, _k, _f, _l in intervals]))
    needed = {key: value for key, value in wanted.items() if key not in versions}
    before = set(versions.values())
    missing, hung = _extract(repo, config, writer, summary, progress, needed, versions)
    extracted = set(versions.values()) - before
    added = set(versions.values()) - writer.in_history(versions.values())
    # Each version's status and passage count, once: the old head's versions at the touched paths and every new row's.
    summaries = writer.version_summaries([*versions.values(), *(vid for _row, vid in open_rows.values())])
    for path in touched:  # what the old head held at these paths leaves the summary
        head.notes.pop(path, None)
        if path in open_rows:
            status, _reason, passages = summaries[open_rows[path][1]]
            head.add_version(path, file_type(path), status, "", passages, sign=-1)
    path_versions = _rows(intervals, versions, missing, hung, head_seq, summary, head)
    progress.stage("writing the index")
    with _stage(summary, "write_history"):
        for pv in path_versions:
            if pv.last_seq == head_seq:
                head.add_version(pv.path, file_type(pv.path), *summaries[pv.version_id])
        for version_id in added & {pv.version_id for pv in path_versions}:
            head.versions += 1
            head.failed_versions += summaries[version_id][0] == "skipped"
        writer.extend_history(plan.head_seq, plan.fresh, closed, path_versions)
        changed = tuple(touched)
        used = tuple(sorted({*plan.used, *used_extractors(kind.identity for _p, _e, kind, _f, _l in intervals)}))
        _record_build(writer, tip, history(used) if not (missing or hung) else "", used, head, (plan.head, changed))
        _report_head(summary, head)
    summary.commits = head_seq + 1
    summary.versions = head.versions
    summary.reused = head.versions - summary.extracted
    summary.failures_reused = head.failed_versions - sum(1 for vid in extracted if summaries[vid][0] == "skipped")
    return changed


def _runs_after(
    plan: UpdatePlan, changes: dict[str, list[TreeEntry]], open_rows: dict[str, int]
) -> tuple[list[tuple[TreeEntry, int, int]], dict[int, int]]:
    """`GitRepo.entry_runs` over the new commits alone: the runs they start, and the rows open at
    the old head (`open_rows`: path -> row id) that they end, row id -> the row's last seq."""
    # A row open at the old head is a run whose entry is not needed here: "" marks it.
    state = {path: (TreeEntry(path, "", ""), plan.head_seq) for path in open_rows}
    steps = [(seq, changes.get(c.sha, ())) for seq, c in enumerate(plan.fresh, start=plan.head_seq + 1)]
    head_seq = plan.head_seq + len(plan.fresh)
    runs: list[tuple[TreeEntry, int, int]] = []
    closed: dict[int, int] = {}
    for entry, first, last in runs_along(state, steps, head_seq):
        if entry.sha:
            runs.append((entry, first, last))
        elif last < head_seq:  # no new commit changed it: the row runs on to the new head
            closed[open_rows[entry.path]] = last
    return runs, closed


def _record_build(
    writer: IndexWriter,
    built: str,
    key: str,
    used: Sequence[str],
    head: HeadSummary,
    changed: tuple[str, tuple[str, ...]] | None,
) -> None:
    """The meta an update of this index reads (indexer.index.update); `changed`: (since, paths) or unknown."""
    writer.set_meta("built_commit", built)
    writer.set_meta("built_at", str(int(time.time())))
    writer.set_meta("history_key", key)
    writer.set_meta("history_extractors", json.dumps(list(used)))
    writer.set_meta("head_summary", head.to_json())
    writer.set_meta("changed_paths", changed_paths_json(*(changed or (None, None))))


def _extract(
    repo: GitRepo,
    config: Config,
    writer: IndexWriter,
    summary: BuildSummary,
    progress: Progress,
    needed: _Wanted,
    versions: dict[_Key, int],
) -> tuple[set[str], dict[str, str]]:
    """Extract and record the `needed` versions into `versions`; the blobs missing and those that hung."""
    total = len(needed)
    progress.stage("extracting", total)
    # One `git cat-file --batch` streams the new blobs in order, and they are extracted and
    # chunked (on several cores when there are) and written in that order, a bounded number
    # at a time: the build's memory does not grow with the corpus.
    blobs = repo.iter_blobs([key[0] for key in needed], max_bytes=config.max_file_bytes, skip_missing=True)
    missing: set[str] = set()  # not in the object store: their paths are skipped, nothing is recorded
    # Stopped as hung (the wall-clock backstop): their paths are skipped, nothing is recorded.
    hung: dict[str, str] = {}

    # The stages' seconds are summed here and added once: a timer object per blob was a visible
    # part of a small page's cost in the build's process.
    clock = time.monotonic
    reading = [0.0]  # seconds waiting for git, summed by `read`
    waited = written = 0.0

    def read() -> Iterator[tuple[tuple[_Key, tuple[str, ...], int], bytes | None, str, str]]:
        for key, (path, identities) in needed.items():
            started = clock()
            _sha, size, data = next(blobs)
            reading[0] += clock() - started
            if size == MISSING_SIZE:
                missing.add(key[0])
            yield (key, identities, size), data, path, key[1]

    results = prepared_in_order(config, read(), total)  # a generator: closing it stops the pool
    try:
        with contextlib.closing(blobs), contextlib.closing(results):
            for _ in range(total):
                read_before, started = reading[0], clock()
                (key, identities, size), prepared = next(results)
                blob, _identity, form = key
                waited += clock() - started - (reading[0] - read_before)
                # A missing blob is not remembered as a failure: once `git fetch` brings it, the next build
                # reads it. Nor is a hung extraction: it says nothing about the bytes, the next build tries again.
                if isinstance(prepared, NotThisTime):
                    hung[blob] = prepared.reason
                elif blob not in missing:
                    started = clock()
                    versions[key] = _index_version(config, writer, blob, form, identities, size, prepared)
                    written += clock() - started
                    summary.extracted += 1
                progress.advance()
    finally:
        for name, seconds in (("read_blobs", reading[0]), ("extract_and_chunk", waited), ("write_versions", written)):
            summary.stages[name] = summary.stages.get(name, 0.0) + seconds
    return missing, hung


def _rows(
    intervals: list[tuple[str, TreeEntry, _Kind, int, int]],
    versions: dict[_Key, int],
    missing: set[str],
    hung: dict[str, str],
    head_seq: int,
    summary: BuildSummary,
    head: HeadSummary,
) -> list[PathVersion]:
    """The interval rows of the indexed versions; what is skipped at the head goes to `head` or `summary`."""
    path_versions = []
    for path, entry, kind, first, last in intervals:
        if kind.identity is None:
            if last == head_seq and kind.skip_reason:
                head.notes[path] = ("skipped", kind.skip_reason, kind.hint)
            continue
        if entry.sha in missing:
            if last == head_seq:
                reason = f"blob {entry.sha[:12]} is missing from the object store"
                summary.skipped.append(Skipped(path, reason, MISSING_BLOB_HINT))
            continue
        if entry.sha in hung:
            if last == head_seq:
                summary.skipped.append(Skipped(path, hung[entry.sha], "the next build tries it again"))
            continue
        version_id = versions[(entry.sha, kind.identity, kind.form)]
        path_versions.append(PathVersion(path, version_id, first, last))
    return path_versions


_Key = tuple[str, str, str]  # (blob, extractor identity, form): what a version's row depends on, and nothing else
_Wanted = dict[_Key, tuple[str, tuple[str, ...]]]  # (blob, identity, form) -> (first path, identities)


def _wanted_versions(
    intervals: list[tuple[str, TreeEntry, _Kind, int, int]], known: dict[_Key, int]
) -> tuple[_Wanted, dict[_Key, int]]:
    """Every (blob, identity, form) the history holds, and the recorded version of those the index has.

    A version recorded under any identity the blob may have now is the text extracting it again
    would give: a PDF under its OCR configuration's, or under none when its pages all have text.
    """
    wanted: _Wanted = {}
    for path, entry, kind, _first, _last in intervals:
        if kind.identity is not None:
            wanted.setdefault((entry.sha, kind.identity, kind.form), (path, kind.identities))
    versions: dict[_Key, int] = {}
    for (blob, identity, form), (_path, identities) in wanted.items():
        found = next((known[(blob, i, form)] for i in identities if (blob, i, form) in known), None)
        if found is not None:
            versions[(blob, identity, form)] = found
    return wanted, versions


def _intervals(
    repo: GitRepo, config: Config, commits: list[CommitInfo]
) -> list[tuple[str, TreeEntry, _Kind, int, int]]:
    """(path, entry, kind, first_seq, last_seq) for every run of commits a path kept one blob."""
    return _classified(repo, config, commits[-1].sha, repo.entry_runs(commits, config.roots))


def _classified(
    repo: GitRepo, config: Config, built: str, runs: list[tuple[TreeEntry, int, int]]
) -> list[tuple[str, TreeEntry, _Kind, int, int]]:
    # Every version is read with the declarations of the built commit: a declaration added
    # later applies to the older versions of its paths too.
    declared = attributes.declared_for(repo, built, (entry.path for entry, _first, _last in runs))
    kinds: dict[_KindKey, _Kind] = {}
    known: _ExtractorKinds = {}
    result: list[tuple[str, TreeEntry, _Kind, int, int]] = []
    for entry, first, last in runs:
        path = entry.path
        declared_here = declared.get(path, UNDECLARED)
        key = (path.rsplit("/", 1)[-1], is_snapshot(path), entry.mode, declared_here)
        kind = kinds.get(key)
        if kind is None:
            kind = kinds[key] = classify(entry, config, declared_here, known)
        result.append((path, entry, kind, first, last))
    return result


# What `classify` reads of an entry: its file name (the extractors' extensions, the text format and
# the dotfile and snapshot-metadata tests all look at the name's end), whether it lies under the
# snapshot root, its mode and its declarations. A corpus repeats names across folders (tldr: 38,365
# pages, 7,241 names), so the paths of one name are classified once.
_KindKey = tuple[str, bool, str, Declared]


def _failures_key(config: Config) -> str:
    """The limits a remembered failure met; a failure under other limits is tried again."""
    return json.dumps(dataclasses.asdict(extract_mod.Limits.from_config(config)), sort_keys=True)


def _add_skipped(writer: IndexWriter, blob: str, identity: str, form: str, size: int, reason: str) -> int:
    """Record a version that has no text, with the reason; later builds with the same limits reuse it."""
    return writer.add_version(blob=blob, identity=identity, form=form, size=size, extracted=None, reason=reason)


def _index_version(
    config: Config,
    writer: IndexWriter,
    blob: str,
    form: str,
    identities: tuple[str, ...],
    size: int,
    prepared: Outcome | None,
) -> int:
    """Record the version: its text under the identity the extraction gave it, or why it has none
    under the last of `identities` (a PDF's OCR configuration: another one tries it again)."""
    identity = identities[-1]
    if prepared is None:  # iter_blobs does not read a blob over the limit
        return _add_skipped(
            writer, blob, identity, form, size, f"larger than max_file_bytes ({size} > {config.max_file_bytes} bytes)"
        )
    if isinstance(prepared, str):  # why it could not be extracted
        return _add_skipped(writer, blob, identity, form, size, prepared)
    extracted, spans = prepared
    identity = extracted.identity if extracted.identity in identities else identity
    # An extracted document without text is indexed (its path still resolves) with a warning.
    empty = extracted.source_class != "text" and not extracted.text.strip()  # text: no copy of it stripped
    return writer.add_version(
        blob=blob,
        identity=identity,
        form=form,
        size=size,
        extracted=extracted,
        reason="no extractable text" if empty else extracted.warning,
        spans=spans,
    )


def _summarise_head(writer: IndexWriter, summary: BuildSummary, head_seq: int, head: HeadSummary) -> None:
    for path, status, reason, passages in writer.head_documents(head_seq):
        head.add_version(path, file_type(path), status, reason, passages)
    _report_head(summary, head)


def _report_head(summary: BuildSummary, head: HeadSummary) -> None:
    """The head's counts and notes into the build's summary, path by path in order."""
    summary.documents, summary.passages = head.documents, head.passages
    for path, (what, reason, hint) in sorted(head.notes.items()):
        if what == "skipped":
            summary.skipped.append(Skipped(path, reason, hint))
        else:
            summary.warnings.append(f"{path}: {reason}")
    summary.warnings.extend(_whole_types_skipped(head.types, summary.skipped))


def file_type(path: str) -> str:
    """How a summary names a file's type: its extension, lower case.

    The extension as `PurePosixPath.suffix` finds it, without making a path object: every
    document at the built commit is counted on every build.
    """
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[dot:].lower() if 0 < dot < len(name) - 1 else "(no extension)"


def _whole_types_skipped(indexed: Counter[str], skipped: list[Skipped]) -> list[str]:
    """One loud line per file type of which not one file was indexed, with the count and reasons."""
    by_type: dict[str, Counter[str]] = {}
    for item in skipped:
        by_type.setdefault(file_type(item.path), Counter())[item.reason] += 1
    return [
        f"all {sum(reasons.values())} {kind} file(s) were skipped: "
        + "; ".join(f"{reason} ({count})" for reason, count in reasons.most_common(3))
        for kind, reasons in sorted(by_type.items())
        if not indexed[kind]
    ]


def nothing_indexed(summary: BuildSummary) -> RepositoryError | None:
    """The error for a build that indexed no document (wrong roots, a missing extra), or None.

    The index is still written (it is the truth about that commit); the command fails, so CI
    never publishes an empty site without someone noticing.
    """
    if summary.documents:
        return None
    skipped = Counter(file_type(item.path) for item in summary.skipped)
    found = ", ".join(f"{count} {kind}" for kind, count in skipped.most_common(5))
    hints = sorted({item.hint for item in summary.skipped if item.hint})
    return RepositoryError(
        f"commit {summary.commit[:12]}: no document indexed"
        + (f" (skipped: {found})" if found else " (no files to index)"),
        hint="; ".join(hints) or "check `roots`, and that the documents are committed in a supported format",
    )


__all__ = ["BuildSummary", "Skipped", "build_index", "classify"]
