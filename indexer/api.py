"""The library API: what every `pincite` command does, callable from Python.

The CLI is a thin shell over these functions; each returns a typed record whose
`to_json()` is exactly what the command prints with `--json`.

    build(repo, rev)                    -> BuildSummary     index a commit, then render the site
    search(query, repo)                 -> list[SearchHit]  bm25-ranked passages with citations
    cite(path, repo, lines=(12, 18))    -> Cited            a citation pinned to a commit, in every form
    resolve(citation, repo)             -> ResolvedText     exactly the text a citation names
    verify(citations, repo)             -> list[Checked]    verified / drifted / unresolvable, with recovery
    check(paths, repo)                  -> CheckReport      every citation in documents, quotes included
    check_text(text, repo)              -> CheckReport      the same for a draft held in memory
    locate(quote, repo)                 -> Located          where a quote stands now, and what moved it
    pin(items, repo)                    -> Pinned           keep cited commits alive under refs/pincite/pins/
    snapshot(urls, repo)                -> list[SnapshotResult]  fetch pages and commit them (or refresh them)
    export_warc(out, repo)              -> WarcExport       the committed snapshots as a WARC file
    serve(repo)                         -> Preview          a loopback server for the built site
    impact(base, repo, head="HEAD")     -> ImpactReport     the citations a change breaks (verdict differences)

`repo` is any folder inside the corpus repository (default: the current one). A caller
that makes many calls (a server) passes one `resolver` to share its caches, and may pass
a `recoverer` to choose the recovery providers (default: the shipped one and every
installed `pincite.discovery` plugin; `Recoverer.local` runs no plugin).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from indexer.config import Config, load_config
from indexer.errors import IndexDamaged, PinciteError, UsageError
from indexer.index.search import SearchHit, search
from indexer.index.store import set_aside_damaged
from indexer.machine import rare_full_collections, terminated_as_exit
from indexer.text.citation import Citation, github_url, parse_citation, permalink, swhid
from indexer.text.kinds import is_snapshot
from indexer.text.model import lines_label
from indexer.vcs.repo import GitRepo, safe_repo_path

if TYPE_CHECKING:
    import http.server

    from indexer.citations.check import CheckRecord, CheckReport, RecordSink
    from indexer.citations.discovery import DiscoveryResult
    from indexer.citations.drift import Verdict
    from indexer.citations.impact import ImpactRecord, ImpactReport
    from indexer.citations.quote_search import QuoteSearchResult
    from indexer.citations.recovery import Recoverer, RecoveryAttempt
    from indexer.citations.resolve import Resolved, Resolver
    from indexer.citations.verdicts import CheckStatus, Detail, Outcome, QuoteStatus, Severity, VerdictStatus
    from indexer.index.build import BuildSummary, nothing_indexed
    from indexer.progress import Progress
    from indexer.shapes import CitedJson, LocatedJson, PinnedJson, ResolvedTextJson, VerifiedJson

    # The snapshot layer brings the HTTP client: loaded only when a snapshot is cited or fetched.
    from indexer.snapshots.store import SnapshotMeta, SnapshotResult
    from indexer.snapshots.warc import WarcExport

RepoPath = Path | str

# The records of the layers above the index, re-exported here and loaded on first use: a search
# (a process that shells out for one query) imports the index and git layers alone.
_LAZY = {
    "BuildSummary": "indexer.index.build",
    "nothing_indexed": "indexer.index.build",
    "CheckRecord": "indexer.citations.check",
    "CheckReport": "indexer.citations.check",
    "ImpactRecord": "indexer.citations.impact",
    "ImpactReport": "indexer.citations.impact",
    "CheckStatus": "indexer.citations.verdicts",
    "Detail": "indexer.citations.verdicts",
    "Outcome": "indexer.citations.verdicts",
    "QuoteStatus": "indexer.citations.verdicts",
    "Severity": "indexer.citations.verdicts",
    "VerdictStatus": "indexer.citations.verdicts",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_RANGE = re.compile(r"^([0-9]{1,15})(?:-([0-9]{1,15}))?\Z")  # ASCII digits, never past any document


def build(
    repo: RepoPath = ".",
    rev: str = "HEAD",
    *,
    out: RepoPath | None = None,
    index_path: RepoPath | None = None,
    config: Config | None = None,
    site: bool = True,
    progress: Progress | None = None,
    retry_skipped: bool = False,
) -> BuildSummary:
    """Index commit `rev` (history included) and, unless `site` is false, render the static site.

    Both output paths are checked before any work. `out` and `index_path` given here are the
    caller's explicit choice and may lie outside the repository; from a settings file they may not.
    `progress` is told each stage as it starts and its steps as they are done (`indexer.progress`).
    """
    try:
        with rare_full_collections():  # the build's long-lived rows are not scanned again and again
            return _build(repo, rev, out, index_path, config, site, progress, retry_skipped)
    finally:
        if progress is not None:
            progress.finish()


def _build(
    repo: RepoPath,
    rev: str,
    out: RepoPath | None,
    index_path: RepoPath | None,
    config: Config | None,
    site: bool,
    progress: Progress | None,
    retry_skipped: bool,
) -> BuildSummary:
    with GitRepo(repo) as git:
        explicit = {"index_path": str(index_path) if index_path else None, "site_dir": str(out) if out else None}
        config = config or load_config(git.root, explicit)
        out_dir = (Path(out) if out else git.root / config.site_dir) if site else None
        if out_dir is not None:
            from indexer.site.builder import check_site_target  # Jinja loads only when a site is built

            check_site_target(out_dir, git.root, config.roots)
        target = Path(index_path) if index_path else git.root / config.index_path
        stages = partial(_build_stages, git, rev, index_path, config, out_dir, progress, retry_skipped)
        try:
            with terminated_as_exit():  # a CI timeout's SIGTERM removes the build's temporary files on its way out
                return stages()
        except IndexDamaged as exc:
            if Path(exc.path) != target:
                raise
            # The index is made from the repository alone: a damaged one is set aside and made again.
            aside = set_aside_damaged(target)
        summary = stages()
        summary.warnings.insert(0, f"the index {target} was damaged: kept as {aside.name}, and rebuilt whole")
        return summary


def _build_stages(
    git: GitRepo,
    rev: str,
    index_path: RepoPath | None,
    config: Config,
    out_dir: Path | None,
    progress: Progress | None,
    retry_skipped: bool,
) -> BuildSummary:
    from indexer.index.build import build_index

    summary = build_index(
        git, rev, index_path=index_path, config=config, progress=progress, retry_skipped=retry_skipped
    )
    if out_dir is not None:
        from indexer.site.builder import render_site

        stats = render_site(git, config, Path(summary.index_path), out_dir, summary, progress)
        summary.site, summary.site_dir = stats.to_json(), str(out_dir)
        summary.warnings.extend(link.message() for link in stats.broken_links)
        summary.warnings.extend(f"{path}: shown as source only: {why}" for path, why in stats.shown_as_source.items())
        summary.warnings.extend(f"{path}: pages as printed cut short: {why}" for path, why in stats.pages_cut.items())
        if stats.undescribed_pages:
            summary.warnings.append(_undescribed_warning(stats.document_template, stats.undescribed_pages))
        summary.seconds += stats.seconds
    return summary


def _undescribed_warning(template: str, paths: list[str]) -> str:
    """One warning for every document page the search got no path, title or class of."""
    pages = f"{len(paths)} document pages show" if len(paths) > 1 else "1 document page shows"
    return (
        f"{template}: {pages} the search none of their facts (first {min(paths)}), so their results have"
        " no title, path or filters: write the link to the version"
        " (<a id=version href=...v/<blob>.html?commit=...&path=...>) and the class's tag as the shipped"
        " document.html does"
    )


@dataclass(frozen=True)
class CacheKeys:
    """What CI's cache entries are saved under, and the folders they hold (relative to the repository).

    Each key is a prefix: a workflow adds the commit, and restores the newest entry of the prefix.
    `index` changes with pincite (and so the index's schema); the index's entries are valid at any
    commit. `site` changes with everything a reused page was made under (`site_cache_key`).
    """

    index: str
    site: str
    state_dir: str  # the index and the extraction caches
    site_dir: str

    def to_json(self) -> dict[str, str]:
        return {"index": self.index, "site": self.site, "state-dir": self.state_dir, "site-dir": self.site_dir}


def cache_keys(repo: RepoPath = ".", *, config: Config | None = None) -> CacheKeys:
    """The CI cache keys of the repository's index and site under its settings (docs/guide.md, "Set up CI")."""
    import hashlib

    from indexer import __version__
    from indexer.index.store import SCHEMA_VERSION
    from indexer.site.builder import site_cache_key
    from indexer.state import STATE_FOLDER

    with GitRepo(repo) as git:
        config = config or load_config(git.root)
        index = hashlib.sha256(f"pincite {__version__}|schema {SCHEMA_VERSION}".encode()).hexdigest()[:20]
        return CacheKeys(
            index=f"pincite-index-{index}-",
            site=f"pincite-site-{site_cache_key(git.root, config)}-",
            state_dir=STATE_FOLDER,
            site_dir=config.site_dir,
        )


@dataclass(frozen=True)
class Cited:
    """A new citation and every form of it: text form, permalink, GitHub URL, SWHID, Markdown."""

    resolved: Resolved
    permalink: str | None
    github_url: str | None
    swhid: str

    @property
    def citation(self) -> Citation:
        return self.resolved.citation

    def markdown(self) -> str:
        return markdown_snippet(self.resolved, self.permalink)

    def to_json(self) -> CitedJson:
        return {
            **self.resolved.to_json(),
            "permalink": self.permalink,
            "github_url": self.github_url,
            "swhid": self.swhid,
        }


def markdown_snippet(resolved: Resolved, link: str | None) -> str:
    """A blockquote of the cited text followed by its citation (the shape `check` reads back)."""
    quoted = "\n".join("> " + line if line else ">" for line in resolved.text.rstrip("\n").split("\n"))
    first, last = resolved.lines
    label = f"{resolved.path}, {lines_label(first, last)}"
    source = f"[{label}]({link})" if link else resolved.citation.text_form()
    return f"{quoted}\n\n— {source}\n"


def cite(
    path: str,
    repo: RepoPath = ".",
    *,
    lines: tuple[int, int] | None = None,
    chars: tuple[int, int] | None = None,
    quote: str | None = None,
    rev: str = "HEAD",
    unit: str | None = None,
    site_url: str | None = None,
    resolver: Resolver | None = None,
) -> Cited:
    """Cite `path` at `rev` by a line range, a character range or the words it quotes (exactly one)."""
    if sum(v is not None for v in (lines, chars, quote)) != 1:
        raise UsageError("give exactly one of --lines, --chars or --quote", hint="e.g. --lines 12-18")
    from indexer.citations.quote import cite_quote
    from indexer.citations.resolve import cite_span

    with _resolving(repo, resolver) as resolver:
        if quote is not None:
            resolved = cite_quote(resolver, path, quote, rev, unit or "chars")
        else:
            resolved = cite_span(resolver, path, rev, lines, chars, unit)
        base = site_url if site_url is not None else resolver.config.site_url
        origin = resolver.repo.origin_url()
        raw_lines = resolved.source_class == "text"  # only a text document's lines are the raw blob's lines
        return Cited(
            resolved=resolved,
            permalink=permalink(resolved.citation, base, resolved.blob) if base else None,
            github_url=github_url(resolved.citation, origin, resolved.lines) if raw_lines else None,
            swhid=swhid(resolved.citation, resolved.blob, resolved.lines if raw_lines else None, origin),
        )


def parse_range(value: str | None, option: str) -> tuple[int, int] | None:
    """A span request as people write it, `A-B` or `A`, for `cite` (`option` names it in errors)."""
    if value is None:
        return None
    found = _RANGE.match(value.strip())
    if not found:
        raise UsageError(f"{option} {value!r}: expected A-B (or a single number)")
    first = int(found.group(1))
    last = int(found.group(2) or first)
    if last < first:
        raise UsageError(f"{option} {value!r}: the range is reversed", hint=f"write {option} {last}-{first}")
    return first, last


@dataclass(frozen=True)
class ResolvedText:
    """Exactly the text a citation names, with `context` lines around it and a snapshot's provenance."""

    resolved: Resolved
    before: str
    after: str
    snapshot: SnapshotMeta | None

    def to_json(self) -> ResolvedTextJson:
        source = self.snapshot.to_json() if self.snapshot else None
        return {**self.resolved.to_json(), "before": self.before, "after": self.after, "snapshot": source}


def resolve(
    citation: str | Citation, repo: RepoPath = ".", *, context: int = 0, resolver: Resolver | None = None
) -> ResolvedText:
    """The exact text `citation` pins, read from git objects (never the working tree)."""
    with _resolving(repo, resolver) as resolver:
        resolved = resolver.resolve(_parsed(citation))
        before, after = resolved.context(context)
        return ResolvedText(resolved, before, after, _provenance(resolver, resolved.citation))


@dataclass(frozen=True)
class Checked:
    """One citation's verdict against a target commit, with a recovery attempt when it did not hold."""

    citation: Citation
    verdict: Verdict
    recovery: RecoveryAttempt | None
    snapshot: SnapshotMeta | None = field(default=None)

    def fails(self, strict: bool = False) -> bool:
        """Whether this verdict fails `verify`: unresolvable, and drifted too when `strict`."""
        from indexer.citations.verdicts import VerdictStatus

        return self.verdict.status == VerdictStatus.UNRESOLVABLE or (
            strict and self.verdict.status == VerdictStatus.DRIFTED
        )

    def to_json(self) -> VerifiedJson:
        return {
            **self.verdict.to_json(),
            "recovery": self.recovery.to_json() if self.recovery else None,
            "snapshot": self.snapshot.to_json() if self.snapshot else None,
        }


def verify(
    citations: list[str] | list[Citation],
    repo: RepoPath = ".",
    *,
    against: str = "HEAD",
    resolver: Resolver | None = None,
    recoverer: Recoverer | None = None,
) -> list[Checked]:
    """Whether each citation still holds at `against`: verified, drifted or unresolvable (docs/design.md#verdicts)."""
    from indexer.citations.drift import prefetch_hunks
    from indexer.citations.drift import verify as _verify
    from indexer.citations.recovery import Recoverer

    with _resolving(repo, resolver) as resolver:
        parsed = [_parsed(c) for c in citations]
        recoverer = recoverer or Recoverer.with_providers(resolver)
        if len(parsed) > 1:  # as `check` does: renames and diffs of them all in a few git processes
            with contextlib.suppress(PinciteError):  # an unknown --against: each verdict below says so
                prefetch_hunks(resolver, parsed, resolver.commit(against))
        checked = []
        for cited in parsed:
            verdict = _verify(cited, resolver.repo, against, resolver=resolver)
            checked.append(Checked(cited, verdict, recoverer.attempt(verdict), _provenance(resolver, cited)))
        return checked


def check(
    paths: list[Path] | list[str],
    repo: RepoPath = ".",
    *,
    against: str = "HEAD",
    fix: bool = False,
    accept_moved: bool = False,
    recovery_log: Path | None = None,
    site_url: str | None = None,
    resolver: Resolver | None = None,
    on_record: RecordSink | None = None,
) -> CheckReport:
    """Find and verify every citation (and its quote) in the Markdown and text documents at `paths`.

    With `on_record`, each `CheckRecord` is handed to it as soon as its file is checked and the
    report keeps counts only (`report.records` stays empty): for very many citations.
    """
    from indexer.citations.check import check_paths

    with _resolving(repo, resolver) as resolver:
        base = site_url if site_url is not None else resolver.config.site_url
        return check_paths(
            paths,
            resolver.repo,
            against,
            resolver=resolver,
            fix=fix,
            site_url=base or None,
            accept_moved=accept_moved,
            recovery_log=recovery_log,
            on_record=on_record,
        )


def check_text(
    text: str,
    repo: RepoPath = ".",
    *,
    against: str = "HEAD",
    name: str = "<text>",
    resolver: Resolver | None = None,
    recoverer: Recoverer | None = None,
) -> CheckReport:
    """Check the citations of a draft held in memory (an answer before it is shown, say)."""
    from indexer.citations.check import check_text as _check_text

    with _resolving(repo, resolver) as resolver:
        return _check_text(text, resolver.repo, against, resolver=resolver, recoverer=recoverer, name=name)


@dataclass(frozen=True)
class Located:
    """Where a quote stands at the target, near matches, when it left a path, and discovery's suggestions."""

    search: QuoteSearchResult
    discovery: DiscoveryResult | None

    @property
    def found(self) -> bool:
        return bool(self.search.places)

    def to_json(self) -> LocatedJson:
        return {
            **self.search.to_json(),
            "steps": list(self.search.steps),
            "discovery": self.discovery.to_json() if self.discovery else None,
        }


def locate(
    quote: str,
    repo: RepoPath = ".",
    *,
    against: str = "HEAD",
    path: str | None = None,
    since: str | None = None,
    unit: str = "chars",
    fuzzy: bool = True,
    resolver: Resolver | None = None,
    recoverer: Recoverer | None = None,
) -> Located:
    """Where `quote` stands at `against`; with `path`/`since`, which commit moved or changed it."""
    from indexer.citations.recovery import Recoverer

    with _resolving(repo, resolver) as resolver:
        target = resolver.commit(against)
        cited_path = safe_repo_path(path) if path else None
        pinned = resolver.commit(since) if since else None
        recoverer = recoverer or Recoverer.with_providers(resolver)
        found = recoverer.searcher.search(quote, target, cited_path=cited_path, pinned=pinned, unit=unit, fuzzy=fuzzy)
        return Located(found, None if found.places else recoverer.discover(quote, None))


@dataclass(frozen=True)
class Pinned:
    """The cited commits a `pin` keeps alive, and the pin refs it created (the others existed)."""

    commits: tuple[str, ...]
    created: tuple[str, ...]

    def to_json(self) -> PinnedJson:
        return {"commits": list(self.commits), "created": list(self.created)}


def pin(
    items: list[str] | tuple[str, ...] = (),
    repo: RepoPath = ".",
    *,
    commits: list[str] | tuple[str, ...] | set[str] = (),
    resolver: Resolver | None = None,
) -> Pinned:
    """Create `refs/pincite/pins/<sha>` for every commit cited by `items` (citations, or documents
    and folders whose citations count) and for `commits`, so that git's garbage collection keeps them.

    An item that names an existing file or folder is a document; any other is a citation.
    """
    from indexer.citations.check import check_paths
    from indexer.vcs.pins import pin_commits

    with _resolving(repo, resolver) as resolver:
        wanted = list(commits)
        documents = [Path(item) for item in items if Path(item).exists()]
        wanted += [resolver.commit(parse_citation(item).commit) for item in items if not Path(item).exists()]
        if documents:
            report = check_paths(documents, resolver.repo, "HEAD", resolver=resolver)
            wanted += [r.verdict.resolved.commit for r in report.records if r.verdict and r.verdict.resolved]
        created = pin_commits(resolver.repo, wanted)
        return Pinned(tuple(sorted(set(wanted))), tuple(created))


def snapshot(
    urls: list[str] | tuple[str, ...] = (),
    repo: RepoPath = ".",
    *,
    message: str | None = None,
    commit: bool = True,
    allow_private: bool = False,
    refresh: bool = False,
    all_snapshots: bool = False,
) -> list[SnapshotResult]:
    """Fetch each URL through the SSRF guard and commit it under `snapshots/` (docs/design.md#d6 and #d7).

    With `refresh`, re-fetch URLs already snapshotted (`all_snapshots`: every one at HEAD) and
    commit only what changed; a URL that fails is reported with status "failed", its old
    snapshot kept. Without it, a failed or refused fetch raises and stores nothing.
    """
    from indexer.snapshots import store  # the HTTP client loads only here

    with GitRepo(repo) as git:
        if refresh:
            return store.refresh(urls, git, all_snapshots, message, commit, allow_private)
        return store.snapshot(urls, git, message, commit, allow_private)


def export_warc(out: RepoPath, repo: RepoPath = ".", *, urls: list[str] | tuple[str, ...] = ()) -> WarcExport:
    """Write the snapshots committed at HEAD (all, or those of `urls`) to the WARC file `out`; fetch nothing."""
    from indexer.snapshots import warc

    with GitRepo(repo) as git:
        return warc.export_warc(git, out, urls=urls)


@dataclass(frozen=True)
class Preview:
    """A loopback HTTP server for a built site; `server.serve_forever()` runs it."""

    server: http.server.ThreadingHTTPServer
    folder: Path

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}/"


def serve(repo: RepoPath = ".", *, site_dir: RepoPath | None = None, port: int = 8000) -> Preview:
    """A server for the site in `site_dir` (default: the repository's configured `site_dir`) on 127.0.0.1."""
    from indexer.site.serve import make_server

    if site_dir is None:
        with GitRepo(repo) as git:
            folder = git.root / load_config(git.root).site_dir
    else:
        folder = Path(site_dir)
    return Preview(make_server(folder, port), folder)


@contextlib.contextmanager
def _resolving(repo: RepoPath, resolver: Resolver | None) -> Iterator[Resolver]:
    """The caller's resolver, or one of this call's own whose git processes end with the call."""
    from indexer.citations.resolve import Resolver

    if resolver is not None:
        yield resolver
        return
    with GitRepo(repo) as git:
        yield Resolver(git)


def impact(
    base: str,
    repo: RepoPath = ".",
    *,
    head: str = "HEAD",
    paths: list[str] | tuple[str, ...] = (),
    resolver: Resolver | None = None,
) -> ImpactReport:
    """Every citation in the documents at `head` whose verdict or quote verdict the change base...head alters.

    `paths` are repository paths (files or folders) at `head`; none means the whole tree. Only the
    citations of the paths the change touched are verified again (docs/design.md#d19).
    """
    from indexer.citations.impact import impact as _impact

    with _resolving(repo, resolver) as resolver:
        return _impact(resolver.repo, base, head, paths, resolver=resolver)


def _parsed(citation: str | Citation) -> Citation:
    return citation if isinstance(citation, Citation) else parse_citation(citation)


def _provenance(resolver: Resolver, citation: Citation) -> SnapshotMeta | None:
    """Where a snapshot came from (URL, fetch time), for citations into `snapshots/`."""
    if not is_snapshot(citation.path):
        return None
    try:
        commit = resolver.commit(citation.commit)  # cached: verify resolved it already
    except PinciteError:
        return None
    from indexer.snapshots.store import snapshot_provenance

    return snapshot_provenance(resolver.repo, commit, citation.path)


__all__ = [
    "BuildSummary",
    "CheckRecord",
    "CheckReport",
    "CheckStatus",
    "Checked",
    "Cited",
    "Detail",
    "ImpactRecord",
    "ImpactReport",
    "Located",
    "Outcome",
    "Pinned",
    "Preview",
    "QuoteStatus",
    "ResolvedText",
    "SearchHit",
    "Severity",
    "VerdictStatus",
    "build",
    "check",
    "check_text",
    "cite",
    "export_warc",
    "impact",
    "locate",
    "markdown_snippet",
    "nothing_indexed",
    "parse_range",
    "pin",
    "resolve",
    "search",
    "serve",
    "snapshot",
    "verify",
]
