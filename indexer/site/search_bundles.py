"""The site's search index as a base of Pagefind bundles and a small delta bundle.

Pagefind has no incremental mode: one run indexes every page it is given, and its time follows
the text it is given. So the document pages are indexed as:

- the **base** (`pagefind/base-<key>/`, one folder per part): every document page as of the
  build that made it;
- the **delta** (`pagefind/delta-<key>/`): only the pages added or changed since the base was
  made. A build that changes a document indexes the delta again, not the base.

Pagefind also holds its whole index in memory until it writes it: some 11–15 bytes for each byte
of page it reads (BENCHMARKS.md, "Search memory"), 2.5 GB at 10,000 documents. So a base larger
than `site_search_part_mb` of pages is cut into **parts** of about that size, from a shuffle of
the pages (so each part's word statistics, by which it ranks, stay near the whole site's), indexed
one after another: the build's memory stays bounded whatever the corpus. Each part's
word index is cut into chunks that many times smaller than Pagefind's default, so a query word
downloads about as much from all the parts together as from one bundle of every page.

Pagefind ranks each bundle's pages by that bundle's own word statistics (how many of its pages
hold a word, their mean length), so a delta of a few pages alone would rank its pages as if the
site were those few: a document edited by one line would sink in every search until the base is
made again. So the delta also indexes a **sample**: the first `DELTA_SAMPLE_PAGES` unchanged pages
in shuffled order, which makes its statistics the site's in small. A sample page is staged with a
mark (`SAMPLE_MARK`), so its Pagefind id differs from its base copy's, and the browser drops it
like a superseded page; its base copy is the one searched. Pagefind indexes each language apart
(an index per language, each ranked by its own statistics), so the sample is drawn from the
delta's languages alone: a page edited in one of forty languages costs Pagefind one language's
sample, not forty. A page's language is taken here from its folder (`folder_language`), as the
site's setting says otherwise; a page whose front matter names another language is still searched
exactly, only ranked by a sample of its folder's language.

A base page whose document changed or went since the base was made is **superseded**: its text
is no longer at the built commit. `search-bundles.json` lists the Pagefind ids of the superseded
pages, and the browser drops those results before it loads anything of them (a result's id is the
name of its fragment file, and Pagefind fetches a fragment only when asked for the result's data).
Each bundle folder holds `pincite-pages.json`, its pages' paths, content keys and Pagefind ids, read
from the fragments Pagefind wrote; that is how a later build knows which ids to list.

The base is made again (and the delta emptied) when the previous site has no usable base (a cold
build; a changed site fingerprint or Pagefind version, both in the bundles' salt), when the pages
changed or removed since the base pass `delta_share` of the document pages, or when a delta page
got the id of a superseded page (the browser could not tell the two apart).

A folder's name carries a key of everything it was made from (its pages' paths and content keys,
the salt), so a bundle is immutable: an unchanged bundle keeps its folder from build to build.
Like version pages, bundles are not copied from site to site: the live `pagefind/` folder gains
the new bundles and moves into the new site (see `builder._swap`).

What Pagefind reads of a page: the staged copy (`search_record`) is the page's language, its
Pagefind metadata and its searchable body alone. It leaves out the site's chrome, and the section
the document template marks `<!--pincite:unindexed-->…<!--/pincite:unindexed-->` (a rendered
document's source lines, which Pagefind would parse only to ignore: a third of the page's bytes, a
quarter of Pagefind's time). The metadata (path, title, commit, folder and class) is not in the
published page at all: the record writes it from what the page shows (its link to its version, its
class's tag and its title: `page_facts`), which keeps some 370 bytes out of each of the site's
largest set of pages.

Pagefind writes its WebAssembly, one file a language, into every bundle; a reader loads it from
the first bundle that holds the language searched, so the other bundles' copies are removed when
the bundle is made (`thin_runtimes`).

Why one delta and not more: a query fetches a word-index chunk per query word from every bundle,
and with Pagefind's default chunk size those do not shrink with the bundle below some 30 KB
(BENCHMARKS.md, "Search bundles"); a delta of a few pages costs a reader a few KB.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

from indexer.errors import PinciteError
from indexer.site.page_facts import document_facts
from indexer.site.render import doc_page_path

SEARCH_FOLDER = "pagefind"
BUNDLE_LIST = "search-bundles.json"
PAGE_IDS = "pincite-pages.json"  # in each bundle folder: [[path, content key, Pagefind id or null], ...]
# What Pagefind writes before the JSON of a fragment, once decompressed.
FRAGMENT_SIGNATURE = b"pagefind_dcd"

# Around what a page holds for readers but not for search; only the last such section is cut,
# so a marker inside the document's own text (before it) cannot hide that text from search.
UNINDEXED_START, UNINDEXED_END = b"<!--pincite:unindexed-->", b"<!--/pincite:unindexed-->"
# Where the document template's searchable body starts, and the head's Pagefind metadata.
SEARCH_BODY = b"<article data-pagefind-body"
# A document page of the shipped template writes none of Pagefind's marks (issue 28: its chrome):
# the record puts them back (`pagefind_marks`) on its `<article>`, its path and facts lines and, on
# a page with a rendered view, the source view, whose lines are cut as the unindexed section was.
ARTICLE = b"\n<article>\n"
PATH_LINE = re.compile(rb"<p class=([\"']?)doc-path\1(>)")  # quoted or not (page_facts.py)
META_LINE = re.compile(rb"<p class=([\"']?)doc-meta\1(>)")
RENDERED_VIEW = re.compile(rb"<div id=([\"']?)rendered\1[\s>]")
SOURCE_VIEW = re.compile(rb"<div id=([\"']?)source-view\1(>)\n")
SOURCE_LINES, SOURCE_END = b"<ol id=src ", b"</ol>"
IGNORE = b" data-pagefind-ignore"
PAGEFIND_META = re.compile(rb"<meta\s[^>]*data-pagefind-[^>]*>")

# Pagefind's own word-index chunk size (in word positions), and the variable that sets another.
# The variable is marked unstable by Pagefind: without it, parts give the same search, and a query
# downloads up to a default-sized chunk per part and query word.
PAGEFIND_CHUNK_POSITIONS = 20_000
CHUNK_SIZE_VARIABLE = "PAGEFIND_UNSTABLE_INDEX_CHUNK_SIZE"

# What Pagefind writes for its own search interfaces: the site has its own (static/search-index.js).
# The WebAssembly files are thinned apart (`thin_runtimes`); `wasm.unknown.pagefind` is the one
# Pagefind loads for every language it has no stemmer for (Chinese, Japanese, ...).
PAGEFIND_UNUSED = (
    "pagefind-ui.js",
    "pagefind-ui.css",
    "pagefind-component-ui.js",
    "pagefind-component-ui.css",
    "pagefind-modular-ui.js",
    "pagefind-modular-ui.css",
    "pagefind-highlight.js",
)

# The delta's sample (see above): enough pages for its word statistics to be near the site's,
# few enough for Pagefind to read them beside the rest of a one-file build. Its word index is cut
# fine, so a query word fetches a few KB of it.
DELTA_SAMPLE_PAGES = 200
DELTA_CHUNK_POSITIONS = 2_000
# What sets a staged sample page apart from its base copy: Pagefind's id is a hash of the page's
# record, and this adds a metadata field to it.
SAMPLE_MARK = b'<meta data-pagefind-meta="pincite-sample:1">'

BundleKind = Literal["base", "delta"]


@dataclass(frozen=True)
class Bundle:
    """A set of document pages and the Pagefind bundle made of them."""

    kind: BundleKind
    pages: tuple[tuple[str, str], ...]  # (document path, page content key), sorted by path
    salt: str  # what every bundle of the site depends on: the site fingerprint, Pagefind's version
    chunk_size: int = 0  # Pagefind's word-index chunk size for this bundle; 0 is Pagefind's default
    sample: tuple[tuple[str, str], ...] = ()  # pages indexed for their statistics only, never shown

    @cached_property
    def folder(self) -> str:
        """The bundle's folder under `pagefind/`: its kind, then a key of what it was made from."""
        made_from: list[object] = [self.salt, self.pages] + ([self.chunk_size] if self.chunk_size else [])
        made_from += [self.sample] if self.sample else []
        key = hashlib.sha256(json.dumps(made_from, ensure_ascii=False).encode("utf-8")).hexdigest()
        return f"{self.kind}-{key[:16]}"


def make_bundle(
    kind: BundleKind, pages: Mapping[str, str], salt: str, chunk_size: int = 0, sample: Mapping[str, str] | None = None
) -> Bundle:
    return Bundle(kind, tuple(sorted(pages.items())), salt, chunk_size, tuple(sorted((sample or {}).items())))


@dataclass(frozen=True)
class IndexedBundle:
    """A bundle a build made: the bundle, and the Pagefind id of each of its pages."""

    bundle: Bundle
    ids: Mapping[str, str]  # document path → Pagefind page id (its fragment's name); none for an empty page
    sample_ids: Mapping[str, str] = field(default_factory=dict)  # the same for the bundle's sample pages


@dataclass(frozen=True)
class SearchPlan:
    """The bundles a site's search is made of, and the base pages the browser must drop."""

    base: tuple[Bundle, ...]  # the base's parts; none only when the site has no document page
    delta: Bundle | None  # None when no page changed since the base
    superseded: tuple[str, ...]  # base document paths whose page is not the built commit's

    @property
    def bundles(self) -> list[Bundle]:
        return [*self.base, *([self.delta] if self.delta else [])]


def plan_search(
    pages: Mapping[str, str],
    salt: str,
    base: Sequence[IndexedBundle],
    delta_share: float,
    language: Callable[[str], str] | None = None,
) -> SearchPlan | None:
    """The bundles for the document pages `pages` (path → content key) that keep the previous base.

    None when a new base must be made (see `fresh_plan`): there is no previous base, or it was not
    made with this salt, or the pages changed, added or removed since it was made are more than
    `delta_share` of the current pages. `language` names a page's language by its path: the delta's
    sample is drawn from the languages of its pages (without it, every page is of one language).
    """
    if not pages or not base or any(part.bundle.salt != salt for part in base):
        return None
    made = {path: key for part in base for path, key in part.bundle.pages}
    delta = {path: key for path, key in pages.items() if made.get(path) != key}
    superseded = tuple(path for path in sorted(made) if pages.get(path) != made[path])
    if len(delta.keys() | set(superseded)) > delta_share * len(pages):
        return None
    parts = tuple(part.bundle for part in base)
    if not delta:
        return SearchPlan(parts, None, superseded)
    languages = {language(path) for path in delta} if language else set()
    unchanged = (
        (path, key)
        for path, key in pages.items()
        if made.get(path) == key and (language is None or language(path) in languages)
    )
    sample = dict(shuffled(unchanged)[:DELTA_SAMPLE_PAGES])
    return SearchPlan(parts, make_bundle("delta", delta, salt, DELTA_CHUNK_POSITIONS, sample), superseded)


def fresh_plan(pages: Mapping[str, str], salt: str, page_bytes: Callable[[str], int], part_bytes: int) -> SearchPlan:
    """A new base over every page, cut into parts of about `part_bytes` of pages (0: one part), and no delta."""
    return SearchPlan(base_parts(pages, salt, page_bytes, part_bytes), None, ())


def base_parts(
    pages: Mapping[str, str], salt: str, page_bytes: Callable[[str], int], part_bytes: int
) -> tuple[Bundle, ...]:
    """The pages in `shuffled` order, cut into as few runs of about equal bytes as keep each near `part_bytes`.

    A part holds at most `part_bytes` and one page more. Each part ranks its pages by its own
    word statistics (how many of its pages hold a word), so the parts are cut from a shuffle of the
    pages, not from path order: a folder's documents, which share their words, spread over every
    part, and each part's statistics stay near the whole site's. With more than one part, each
    part's word-index chunks are that many times smaller than Pagefind's, so that the chunks a
    query word needs from all the parts add up to about one default chunk.
    """
    ordered = shuffled(pages.items())
    if not ordered:
        return ()
    sizes = [max(1, page_bytes(path)) for path, _key in ordered]
    total = sum(sizes)
    count = math.ceil(total / part_bytes) if part_bytes > 0 else 1
    runs: list[dict[str, str]] = [{} for _ in range(count)]
    before = 0
    for (path, key), size in zip(ordered, sizes, strict=True):
        runs[before * count // total][path] = key
        before += size
    runs = [run for run in runs if run]
    chunk_size = max(1, PAGEFIND_CHUNK_POSITIONS // len(runs)) if len(runs) > 1 else 0
    return tuple(make_bundle("base", run, salt, chunk_size) for run in runs)


def shuffled(pages: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The pages in an order fixed by their paths alone and unrelated to it (a hash of each path)."""
    return sorted(pages, key=lambda page: hashlib.sha256(page[0].encode("utf-8")).digest())


def dropped_ids(plan: SearchPlan, base: Sequence[IndexedBundle], delta: IndexedBundle | None) -> list[str]:
    """The ids the browser drops from every answer: superseded base pages, and the delta's sample."""
    superseded = {part.ids[path] for part in base for path in plan.superseded if path in part.ids}
    return sorted(superseded | set(delta.sample_ids.values() if delta else ()))


def ids_clash(plan: SearchPlan, base: Sequence[IndexedBundle], delta: IndexedBundle | None) -> bool:
    """Whether a page still searched has the id of a dropped page: dropping one would drop both.

    Pagefind keeps ids apart within a bundle only; the delta and the base's parts are other bundles.
    """
    dropped = set(dropped_ids(plan, base, delta))
    if not dropped:
        return False
    gone = set(plan.superseded)
    kept = {page_id for part in base for path, page_id in part.ids.items() if path not in gone}
    kept.update(delta.ids.values() if delta else ())
    return not kept.isdisjoint(dropped)


def pagefind_version() -> str:
    """The installed Pagefind, read from the package metadata (starting the binary costs a process)."""
    found = []
    for package in ("pagefind", "pagefind_bin", "pagefind_bin_extended"):
        try:
            found.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            continue
    return ", ".join(found) or "pagefind (version unknown)"


def write_bundle_list(site: Path, plan: SearchPlan, dropped: Sequence[str], folders: Sequence[Path]) -> None:
    """The list the search page reads: the bundles to merge, the ids it drops (superseded, sample),
    the languages they index with their pages (most first), and each bundle's languages.

    `folders` are the bundles' folders, in the order of `plan.bundles`. Pagefind answers a search
    in a language a bundle lacks from that bundle's largest language: the search page merges only
    the bundles that hold the language searched (static/search-index.js).
    """
    languages = [bundle_languages(folder) for folder in folders]
    counts: dict[str, int] = {}
    for found in languages:
        for language, pages in found.items():
            counts[language] = counts.get(language, 0) + pages
    # Pagefind counts every page it indexed, the dropped ones too: a reader is offered the
    # documents searched, each once, as the folder filter counts them, and no language whose
    # documents all went.
    for page_id in dropped:
        held = id_language(page_id, counts)
        if held is not None:
            counts[held] -= 1
    counts = {language: pages for language, pages in counts.items() if pages > 0}
    listing = {
        "bundles": [bundle.folder for bundle in plan.bundles],
        "superseded": list(dropped),
        "languages": dict(sorted(counts.items(), key=lambda item: (-item[1], item[0]))),
        "bundle_languages": {b.folder: sorted(found) for b, found in zip(plan.bundles, languages, strict=True)},
    }
    (site / BUNDLE_LIST).write_text(json.dumps(listing), encoding="utf-8")


def id_language(page_id: str, languages: Iterable[str]) -> str | None:
    """The language of `languages` Pagefind indexed the page `page_id` in, or None when none is.

    Pagefind names a page `<language>_<hash>` (its fragment file, its id in a result); the
    longest match is taken, as a tag may be another one's start (`pt` and `pt-br`).
    """
    held = [language for language in languages if page_id.startswith(f"{language}_")]
    return max(held, key=len) if held else None


def thin_runtimes(folders: Sequence[Path], made: Sequence[bool]) -> None:
    """Remove from the bundles made by this build the WebAssembly no reader loads from them.

    `folders` are the plan's bundle folders in listing order; `made[i]` says whether this build
    made `folders[i]` (a kept bundle is immutable, and was thinned when it was made). Pagefind
    writes its WebAssembly (some 75 KB a language) into every bundle, yet the search page loads it
    from one: the first bundle in listing order that holds the language searched, with the others
    merged into it (static/search-index.js). So a bundle keeps the file of a language only when no
    bundle before it holds that language: at 38,000 pages in 40 languages and 12 bundles, 20 MB
    and 275 files become one file a language.
    """
    held: set[str] = set()
    for folder, fresh in zip(folders, made, strict=True):
        languages = _entry_languages(folder)
        if languages is None:
            return  # a bundle whose languages are unknown: what the next ones need is unknown too
        if fresh:
            needed = {
                f"wasm.{record.get('wasm') or 'unknown'}.pagefind"
                for lang, record in languages.items()
                if lang not in held
            }
            for file in folder.glob("wasm.*.pagefind"):
                if file.name not in needed:
                    file.unlink()
        held.update(languages)


def _entry_languages(folder: Path) -> dict[str, dict[str, Any]] | None:
    """The languages of the bundle in `folder` as Pagefind's entry file records them, or None."""
    try:
        languages = json.loads((folder / "pagefind-entry.json").read_text("utf-8"))["languages"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(languages, dict) or not all(isinstance(r, dict) for r in languages.values()):
        return None
    return languages


def bundle_languages(folder: Path) -> dict[str, int]:
    """The languages Pagefind indexed in the bundle in `folder` (an index each), with their pages."""
    try:
        entry = json.loads((folder / "pagefind-entry.json").read_text("utf-8"))
        return {str(language): int(record.get("page_count", 0)) for language, record in entry["languages"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def read_indexed(folder: Path, kind: BundleKind, salt: str) -> IndexedBundle | None:
    """The bundle in `folder` as a build left it, or None when it is not one made with `salt`.

    The folder's name must be the key of the pages its `pincite-pages.json` lists, under this
    salt: a bundle made by other templates or another Pagefind is never taken for this one's.
    """
    try:
        record = json.loads((folder / PAGE_IDS).read_text(encoding="utf-8"))
        pages, ids = _rows(record["pages"])
        sample, sample_ids = _rows(record.get("sample", []))
        chunk_size = int(record.get("chunk_size", 0))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    bundle = make_bundle(kind, pages, salt, chunk_size, sample)
    return IndexedBundle(bundle, ids, sample_ids) if bundle.folder == folder.name else None


def _rows(rows: list[list[str | None]]) -> tuple[dict[str, str], dict[str, str]]:
    """`pincite-pages.json` rows [path, content key, Pagefind id or null] as (path → key, path → id)."""
    keys = {str(path): str(key) for path, key, _id in rows}
    return keys, {str(path): str(page_id) for path, _key, page_id in rows if page_id is not None}


def index_bundles(
    site: Path,
    bundles: Sequence[Bundle],
    target: Path,
    stage: Path,
    indexed: Callable[[Bundle], None] | None = None,
    undescribed: list[str] | None = None,
) -> float:
    """Index each bundle's pages (under `site`) into `target/<folder>`; the seconds it took.

    `indexed` is called with each bundle once its run is done (the build's progress counts them).
    The paths of the pages whose records hold no Pagefind metadata (a `template_dir`'s document
    page that shows none of its facts, `page_facts`) are added to `undescribed`.

    Each bundle is one Pagefind run over a staging folder holding hard links to just its
    pages, at their paths in the site, so result URLs are the pages' own. Runs go one after
    another: Pagefind uses every core itself, and its memory is what a part bounds.
    """
    if not bundles:
        return 0.0
    started = time.monotonic()
    try:
        for bundle in bundles:
            _index_bundle(site, bundle, target, stage, undescribed if undescribed is not None else [])
            if indexed is not None:
                indexed(bundle)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return time.monotonic() - started


def _index_bundle(site: Path, bundle: Bundle, target: Path, stage: Path, undescribed: list[str]) -> None:
    pages = stage / bundle.folder
    for path, _key in bundle.pages:
        if not _stage(site, doc_page_path(path), pages, sample=False):
            undescribed.append(path)
    for path, _key in bundle.sample:
        _stage(site, doc_page_path(path), pages, sample=True)
    output = target / bundle.folder
    run_pagefind(pages, output, bundle.chunk_size)
    for name in PAGEFIND_UNUSED:
        (output / name).unlink(missing_ok=True)
    _write_page_ids(output, bundle)


def _stage(site: Path, rel: str, stage: Path, sample: bool) -> bool:
    """The page at `rel` as Pagefind reads it, at the same path under `stage` (a hard link when
    unchanged); whether its record holds Pagefind metadata (the search shows a result by it)."""
    staged = stage / rel
    staged.parent.mkdir(parents=True, exist_ok=True)
    page = (site / rel).read_bytes()
    searched = search_record(page)
    described = PAGEFIND_META.search(searched) is not None
    if sample:
        searched = marked_sample(searched)
    if searched is not page:
        staged.write_bytes(searched)
        return described
    try:
        os.link(site / rel, staged)
    except OSError:
        staged.write_bytes(page)
    return described


def marked_sample(page: bytes) -> bytes:
    """A sample page with `SAMPLE_MARK` before its `</head>` (or first, in a page without one)."""
    head_end = page.find(b"</head>")
    return page[:head_end] + SAMPLE_MARK + page[head_end:] if head_end >= 0 else SAMPLE_MARK + page


def search_record(page: bytes) -> bytes:
    """The page as Pagefind is given it: its `<html>` tag (the language), the Pagefind metadata of
    its head and its searchable body, without the site's chrome or its last unindexed section.

    Pagefind reads a page's language, its `data-pagefind-*` metadata and the element marked
    `data-pagefind-body`, nothing else: the record gives the bundle the whole page gives (same
    fragments, same ids), from less than half the bytes at tldr's ~500-byte pages. A page without
    the shipped template's body mark is given whole.
    """
    page = searched_part(page)
    if SEARCH_BODY not in page:
        page = pagefind_marks(page)
    head_end, body = page.find(b"</head>"), page.find(SEARCH_BODY)
    html_start = page.find(b"<html")
    html_end = page.find(b">", html_start)
    if not 0 <= html_start < html_end < head_end < body:
        return page
    metas = PAGEFIND_META.findall(page, html_end, head_end) or record_metadata(page)
    head = b"\n".join([b'<meta charset="utf-8">', *metas])
    return (
        b"<!doctype html>\n"
        + page[html_start : html_end + 1]
        + b"\n<head>\n"
        + head
        + b"\n</head>\n<body>\n"
        + page[body:]
    )


def pagefind_marks(page: bytes) -> bytes:
    """The document page `page` with the Pagefind marks its template leaves to the search record.

    The body is the page's first `<article>` after its head. Its facts line comes before the
    document's text, after the title and the path line (escaped text), so its first opening is the
    template's, and a path line is the template's before it. The source view is the page's last,
    after the rendered view and the document's text, so its last opening is the template's. A page
    without that `<article>` or facts line is returned as it is (given whole to Pagefind).
    """
    article = page.find(ARTICLE, max(page.find(b"</head>"), 0))
    meta = META_LINE.search(page, article) if article >= 0 else None
    if meta is None:
        return page
    line = PATH_LINE.search(page, article, meta.start())
    cuts = [(article + 1, article + len(ARTICLE) - 2, SEARCH_BODY)]  # `<article` becomes the body's mark
    cuts += [(found.start(2), found.start(2), IGNORE) for found in (line, meta) if found is not None]
    view = next(reversed(list(SOURCE_VIEW.finditer(page, meta.end()))), None)
    if view is not None and RENDERED_VIEW.search(page, meta.end(), view.start()) is not None:
        lines = page.find(SOURCE_LINES, view.end())
        end = page.find(SOURCE_END, lines) if lines >= 0 else -1
        if end >= 0:
            cuts += [(view.start(2), view.start(2), IGNORE), (lines, end + len(SOURCE_END), b"")]
    marked, at = [], 0
    for start, stop, text in cuts:
        marked += [page[at:start], text]
        at = stop
    return b"".join([*marked, page[at:]])


def record_metadata(page: bytes) -> list[bytes]:
    """The Pagefind metadata of a document page, from the facts it shows (`page_facts`).

    The search page reads `path`, `title` and `commit` of a result, and filters by `folder` and
    `class`; none of them is written into the published page (see the module's note).
    """
    facts = document_facts(page)
    if facts is None:
        return []
    fields = [
        (b"meta", b"path", facts.path),
        (b"meta", b"title", facts.title),
        (b"meta", b"commit", facts.commit),
        (b"filter", b"folder", facts.path.rpartition(b"/")[0] or b"."),
        (b"filter", b"class", facts.source_class),
    ]
    return [b'<meta data-pagefind-%s="%s[content]" content="%s">' % field for field in fields]


def searched_part(page: bytes) -> bytes:
    """The page as Pagefind is given it: without its last unindexed section (the page itself when it has none)."""
    start = page.rfind(UNINDEXED_START)
    end = page.find(UNINDEXED_END, start) if start >= 0 else -1
    if end < 0:
        return page
    return page[:start] + page[end + len(UNINDEXED_END) :]


def _write_page_ids(output: Path, bundle: Bundle) -> None:
    """Record which Pagefind id each page got, read from the fragments Pagefind wrote.

    A page with no words to index (an empty document) gets no record, and no id: it can never
    be a result, so it never needs to be dropped.
    """
    by_url = fragment_ids(output)

    def rows(pages: tuple[tuple[str, str], ...]) -> list[list[str | None]]:
        return [[path, key, by_url.get("/" + doc_page_path(path))] for path, key in pages]

    record: dict[str, object] = {"pages": rows(bundle.pages)}
    record |= {"chunk_size": bundle.chunk_size} if bundle.chunk_size else {}
    record |= {"sample": rows(bundle.sample)} if bundle.sample else {}
    (output / PAGE_IDS).write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")


def fragment_records(output: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """(Pagefind id, record) of each page in a Pagefind bundle, read from its fragment files.

    The one reader of Pagefind's own file format (a gzipped JSON record behind a signature, one
    file per page, named by its id): pyproject.toml bounds the Pagefind versions it was written for.
    """
    folder = output / "fragment"
    for fragment in sorted(folder.iterdir()) if folder.is_dir() else ():
        data = gzip.decompress(fragment.read_bytes())
        yield fragment.name.removesuffix(".pf_fragment"), json.loads(data.removeprefix(FRAGMENT_SIGNATURE))


def fragment_ids(output: Path) -> dict[str, str]:
    """Each page's URL in a Pagefind bundle → its id (the name of its fragment file)."""
    return {str(record["url"]): page_id for page_id, record in fragment_records(output)}


def run_pagefind(pages: Path, output: Path, chunk_size: int = 0) -> None:
    """Pagefind over the document pages under `pages` (as they stand in a site), into `output`.

    `chunk_size` sets Pagefind's word-index chunk size (0: Pagefind's own, whatever the
    environment says, so that a bundle is what its key says it is).
    """
    cmd = [sys.executable, "-m", "pagefind", "--site", str(pages), "--glob", "doc/**/*.html"]
    # No forced language: Pagefind indexes the pages of each `<html lang>` apart, with its stemmer.
    cmd += ["--output-path", str(output), "--silent"]
    env = {name: value for name, value in os.environ.items() if name != CHUNK_SIZE_VARIABLE}
    env |= {CHUNK_SIZE_VARIABLE: str(chunk_size)} if chunk_size else {}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).strip().splitlines()
        raise PinciteError(
            f"Pagefind could not index the pages of search bundle {output.name}: "
            f"{detail[-1] if detail else 'no output'}",
            hint="check that the pagefind[extended] package is installed (pip install 'pagefind[extended]')",
        )
