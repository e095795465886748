"""Turning new blobs into text and passages, on every core the build may use.

Extraction and chunking are pure functions of (blob bytes, path, identity, settings), so a
build hands them to a process pool when more than one core is present and enough versions
are new; the results come back in the order the blobs were read, so the index is written
exactly as a single-process build writes it (same rows, same ids). A bounded window of
blobs is in flight at once: memory does not grow with the corpus.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import multiprocessing
import sys
from collections import deque
from collections.abc import Generator, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

from indexer.config import Config
from indexer.errors import ExtractionError, ExtractionHung
from indexer.extract import registry as extract_mod
from indexer.extract.text import encoding_of, passage_format
from indexer.machine import usable_cores, worker_deaths_reported
from indexer.text.chunk import chunk_spans
from indexer.text.kinds import is_snapshot
from indexer.text.model import UTF8
from indexer.text.passage import SpanFields

POOL_MIN_VERSIONS = 64  # fewer new versions than this: starting worker processes costs more than it saves
TASKS_PER_WORKER = 2  # tasks in flight per worker process: one at work, one waiting
# One task carries blobs until it holds this many bytes (or BLOBS_PER_TASK blobs): each task costs
# pickling and wake-ups on both sides, about what preparing a hundred small pages does, so a task of
# ~500-byte pages carries many, and a large document goes alone.
TASK_BYTES = 128 * 1024
BLOBS_PER_TASK = 256


@dataclass(frozen=True)
class NotThisTime:
    """Why a version has no text in this build only: its extraction was stopped as hung (the
    wall-clock backstop of its CPU limit), which says nothing about the bytes. Not remembered."""

    reason: str


# What preparing one version gives: its text and passages, why it has none (remembered with
# the limits it met), or why it has none this time. The passages are their fields without their
# text, a slice of the version's (`SpanFields`): half the bytes across processes, a third of the
# pickling time, and the writer takes them so.
Outcome = tuple[extract_mod.ExtractedText, list[SpanFields]] | str
Prepared = Outcome | NotThisTime
T = TypeVar("T")


def extract_and_chunk(
    config: Config, data: bytes, path: str, identity: str
) -> tuple[extract_mod.ExtractedText, list[SpanFields]]:
    """The version's text and passages (their fields but their text, `SpanFields`); raises
    ExtractionError saying why it cannot be indexed."""
    encoding = encoding_of(identity)  # None: not the text class
    extracted = extract_mod.extract(data, path, extract_mod.Limits.from_config(config), encoding or UTF8)
    if is_snapshot(path) and extracted.source_class != "snapshot":
        extracted = dataclasses.replace(extracted, source_class="snapshot")
    spans = chunk_spans(
        extracted.text,
        fmt=passage_format(path, identity),
        max_chars=config.passage_max_chars,
        page_starts=extracted.page_starts,
    )
    return extracted, spans


def prepare(config: Config, data: bytes, path: str, identity: str) -> Prepared:
    """`extract_and_chunk`, with a failure given as its reason (a string crosses processes simply)."""
    try:
        extracted, spans = extract_and_chunk(config, data, path, identity)
    except ExtractionHung as exc:
        return NotThisTime(exc.reason_for(path))
    except ExtractionError as exc:
        return exc.reason_for(path)  # stored per blob: no path
    return extracted, spans


def prepared_in_order(
    config: Config, items: Iterable[tuple[T, bytes | None, str, str]], count: int
) -> Generator[tuple[T, Prepared | None], None, None]:
    """(tag, prepared) for each (tag, data, path, identity) of `items`, in their order.

    `data` None (a blob not read: over the size limit) gives None. `count` is how many items
    come: a pool starts only for enough of them, and only when several cores are usable.
    """
    with _few_collections():
        yield from _prepared_in_order(config, items, count)


def _prepared_in_order(
    config: Config, items: Iterable[tuple[T, bytes | None, str, str]], count: int
) -> Generator[tuple[T, Prepared | None], None, None]:
    workers = min(usable_cores(), 8)
    if workers < 2 or count < POOL_MIN_VERSIONS:
        for tag, data, path, identity in items:
            yield tag, None if data is None else prepare(config, data, path, identity)
        return
    # A fresh server process forks the workers: they inherit no pipe of this process (the
    # cat-file stream), which would keep git waiting for the end of its input.
    method = "forkserver" if sys.platform.startswith("linux") else "spawn"
    context = multiprocessing.get_context(method)
    if method == "forkserver":
        # The server imports the extractors and the chunker once, and each worker it forks has
        # them: a worker no longer imports them itself (a tenth of a second each).
        context.set_forkserver_preload([__name__])
    pool = ProcessPoolExecutor(workers, mp_context=context)
    with worker_deaths_reported("extracting and chunking documents"), _caller_script_hidden(), pool:
        pending: deque[tuple[list[T], Future[list[Prepared | None]]]] = deque()
        in_flight = workers * TASKS_PER_WORKER
        for batch in _batches(items):
            tags = [tag for tag, _data, _path, _identity in batch]
            work = [(data, path, identity) for _tag, data, path, identity in batch]
            pending.append((tags, pool.submit(prepare_batch, config, work)))
            if len(pending) >= in_flight:
                yield from _results(pending.popleft())
        while pending:
            yield from _results(pending.popleft())


def prepare_batch(config: Config, work: list[tuple[bytes | None, str, str]]) -> list[Prepared | None]:
    """`prepare` for each (data, path, identity); None for a blob not read."""
    with _few_collections():
        return [None if data is None else prepare(config, data, path, identity) for data, path, identity in work]


# Objects allocated between two passes of the cyclic garbage collector while versions are prepared
# and written (Python's default: 700). Preparing and writing a version makes hundreds of small
# objects (Markdown events, blocks, rows) that no cycle holds; a pass over them every 700 found
# nothing and cost a tenth of a small page's time.
FEW_COLLECTIONS = 100_000


@contextlib.contextmanager
def _few_collections() -> Iterator[None]:
    """While the block runs, the collector passes over new objects every FEW_COLLECTIONS of them."""
    threshold = gc.get_threshold()
    gc.set_threshold(max(threshold[0], FEW_COLLECTIONS), *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)


def _batches(items: Iterable[tuple[T, bytes | None, str, str]]) -> Iterator[list[tuple[T, bytes | None, str, str]]]:
    """The items in tasks of about TASK_BYTES of data (at most BLOBS_PER_TASK items), in order."""
    batch: list[tuple[T, bytes | None, str, str]] = []
    held = 0
    for item in items:
        batch.append(item)
        held += len(item[1] or b"")
        if held >= TASK_BYTES or len(batch) == BLOBS_PER_TASK:
            yield batch
            batch, held = [], 0
    if batch:
        yield batch


def _results(entry: tuple[list[T], Future[list[Prepared | None]]]) -> Iterator[tuple[T, Prepared | None]]:
    tags, future = entry
    yield from zip(tags, future.result(), strict=True)


@contextlib.contextmanager
def _caller_script_hidden() -> Iterator[None]:
    """Workers need pincite alone: they must not run the calling script again.

    A new worker process imports the `__main__` of its parent by path, which would run a
    caller's script without a main guard (or fail on `python -`); while the pool starts
    its workers, the main module names no file, so a worker imports only what it unpickles.
    """
    main = sys.modules["__main__"]
    saved: dict[str, object] = {name: main.__dict__[name] for name in ("__file__", "__spec__") if name in main.__dict__}
    main.__dict__.pop("__file__", None)
    main.__dict__["__spec__"] = None
    try:
        yield
    finally:
        main.__dict__.pop("__spec__", None)
        main.__dict__.update(saved)
