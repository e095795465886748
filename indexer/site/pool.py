"""Version and document pages rendered on the cores there are.

Each page is a function of its version's text, the templates and the link targets, so the pages
a build renders can be written by several processes at once. With more than one usable core and
enough pages, they are split over forked worker processes: a fork inherits the imported modules,
the compiled templates and the link targets, so a worker starts in milliseconds instead of
importing pincite again. A worker opens its own index connection and git handle (SQLite and
git's pipes must not be shared across a fork), renders its pages with the very functions one
process uses, and sends back only each page's link records. A test checks that the site is the
same byte for byte either way.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import signal
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from indexer.index.store import IndexReader, PathVersion, VersionMeta
from indexer.machine import usable_cores, worker_deaths_reported
from indexer.site.links import DocumentLinks, SiteTargets
from indexer.site.pages import PageContext, render_doc_page, render_version_page
from indexer.text.kinds import text_format
from indexer.vcs.repo import GitRepo

POOL_MIN_PAGES = 300  # fewer pages and forking the workers costs about what it saves
PAGES_PER_TASK = 40
MAX_WORKERS = 8

Records = list[tuple[str, str]]  # a document page's relative links as written, with their kind


@dataclass(frozen=True)
class PageResult:
    """What a written page sends back: its relative links, and why it shows source alone (over budget)."""

    records: Records
    over_budget: str | None = None
    again: bool = False  # over budget in this build only (stopped as hung): not to be reused


@dataclass(frozen=True)
class PageJob:
    """One page to render: a version page (`pv` None) or the document page of `pv`."""

    meta: VersionMeta
    path: str
    target: Path
    pv: PathVersion | None = None


def render(ctx: PageContext, targets: SiteTargets | None, job: PageJob) -> PageResult:
    """Write one page; a document page's link records (none for a version page)."""
    if job.pv is None:
        render_version_page(ctx, job.meta, job.path, job.target)
        return PageResult([])
    links = None
    if targets is not None and (job.meta.is_markdown or text_format(job.path) in ("rst", "asciidoc")):
        links = DocumentLinks(job.path, targets, ctx.repo.read_blob)
    over_budget, again = render_doc_page(ctx, job.meta, job.pv, job.target, links)
    return PageResult(links.records if links else [], over_budget, again)


def render_all(
    ctx: PageContext, jobs: list[PageJob], index_path: Path, targets: SiteTargets | None = None
) -> Iterator[PageResult]:
    """What each job's page sent back, in order, its page written: in worker processes when it pays.

    `targets` are what document pages' links can reach; `index_path` is where a worker opens the index.
    """
    workers = min(usable_cores(), MAX_WORKERS, len(jobs) // PAGES_PER_TASK)
    if workers < 2 or len(jobs) < POOL_MIN_PAGES or not forkable():
        yield from (render(ctx, targets, job) for job in jobs)
        return
    global _PARENT
    _PARENT = (ctx, index_path, targets)  # what the fork hands each worker
    batches = [jobs[start : start + PAGES_PER_TASK] for start in range(0, len(jobs), PAGES_PER_TASK)]
    try:
        context = multiprocessing.get_context("fork")
        pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker)
        with worker_deaths_reported("rendering the site's pages"), pool:
            for records in pool.map(_render_batch, batches):
                yield from records
    finally:
        _PARENT = None


def forkable() -> bool:
    """Whether this process may fork workers: on Linux, with no other thread running.

    A fork copies the calling thread alone: a lock another thread held (a server calling
    `build`, say) would never be released in the workers.
    """
    return sys.platform.startswith("linux") and threading.active_count() == 1


_PARENT: tuple[PageContext, Path, SiteTargets | None] | None = None
_WORKER: PageContext | None = None


def _start_worker() -> None:
    global _WORKER
    assert _PARENT is not None
    ctx, index_path, _targets = _PARENT
    # The parent turns SIGTERM into its cleanup; a worker just stops (the parent removes its pages).
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # SQLite connections and git's pipes must not be shared across a fork: the worker's own.
    _WORKER = dataclasses.replace(ctx, repo=GitRepo(ctx.repo.root), reader=IndexReader(index_path))


def _render_batch(jobs: list[PageJob]) -> list[PageResult]:
    assert _WORKER is not None and _PARENT is not None
    return [render(_WORKER, _PARENT[2], job) for job in jobs]
