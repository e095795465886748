"""The site's search index as a base Pagefind bundle and a small delta bundle.

Pagefind has no incremental mode: one run indexes every page it is given, and its time follows
the text it is given. So the document pages are indexed as at most two bundles:

- the **base** (`pagefind/base-<key>/`): every document page as of the build that made it;
- the **delta** (`pagefind/delta-<key>/`): only the pages added or changed since the base was
  made. A build that changes a document indexes the delta again, not the base.

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

What Pagefind reads of a page: the staged copy leaves out the section the document template
marks `<!--pincite:unindexed-->…<!--/pincite:unindexed-->` (a rendered document's source lines,
which Pagefind would parse only to ignore: a third of the page's bytes, a quarter of Pagefind's
time). The bundle is the one the whole page would give.

Why two bundles and not more: a query fetches a word-index chunk per query word from every bundle,
and Pagefind's chunks do not shrink with the bundle below some 30 KB (BENCHMARKS.md, "Search
bundles"); a delta of a few pages costs a reader a few KB.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from importlib import metadata
from pathlib import Path
from typing import Literal

from indexer.errors import PinciteError
from indexer.machine import usable_cores
from indexer.site.render import doc_page_path

SEARCH_FOLDER = "pagefind"
BUNDLE_LIST = "search-bundles.json"
PAGE_IDS = "pincite-pages.json"  # in each bundle folder: [[path, content key, Pagefind id or null], ...]
# What Pagefind writes before the JSON of a fragment, once decompressed.
FRAGMENT_SIGNATURE = b"pagefind_dcd"

# Around what a page holds for readers but not for search; only the last such section is cut,
# so a marker inside the document's own text (before it) cannot hide that text from search.
UNINDEXED_START, UNINDEXED_END = b"<!--pincite:unindexed-->", b"<!--/pincite:unindexed-->"

BundleKind = Literal["base", "delta"]


@dataclass(frozen=True)
class Bundle:
    """A set of document pages and the Pagefind bundle made of them."""

    kind: BundleKind
    pages: tuple[tuple[str, str], ...]  # (document path, page content key), sorted by path
    salt: str  # what every bundle of the site depends on: the site fingerprint, Pagefind's version

    @cached_property
    def folder(self) -> str:
        """The bundle's folder under `pagefind/`: its kind, then a key of what it was made from."""
        made_from = json.dumps([self.salt, self.pages], ensure_ascii=False).encode("utf-8")
        return f"{self.kind}-{hashlib.sha256(made_from).hexdigest()[:16]}"

    def page_files(self) -> list[str]:
        return [doc_page_path(path) for path, _key in self.pages]


def make_bundle(kind: BundleKind, pages: Mapping[str, str], salt: str) -> Bundle:
    return Bundle(kind, tuple(sorted(pages.items())), salt)


@dataclass(frozen=True)
class IndexedBundle:
    """A bundle a build made: the bundle, and the Pagefind id of each of its pages."""

    bundle: Bundle
    ids: Mapping[str, str]  # document path → Pagefind page id (its fragment's name); none for an empty page


@dataclass(frozen=True)
class SearchPlan:
    """The bundles a site's search is made of, and the base pages the browser must drop."""

    base: Bundle | None  # None only when the site has no document page
    delta: Bundle | None  # None when no page changed since the base
    superseded: tuple[str, ...]  # base document paths whose page is not the built commit's

    @property
    def bundles(self) -> list[Bundle]:
        return [b for b in (self.base, self.delta) if b is not None]


def plan_search(pages: Mapping[str, str], salt: str, base: IndexedBundle | None, delta_share: float) -> SearchPlan:
    """The bundles for the document pages `pages` (path → content key), given the previous base.

    The previous base is kept while it was made with this salt and the pages changed, added or
    removed since it was made are at most `delta_share` of the current pages.
    """
    if not pages:
        return SearchPlan(None, None, ())
    if base is None or base.bundle.salt != salt:
        return fresh_plan(pages, salt)
    made = dict(base.bundle.pages)
    delta = {path: key for path, key in pages.items() if made.get(path) != key}
    superseded = tuple(path for path in sorted(made) if pages.get(path) != made[path])
    if len(delta.keys() | set(superseded)) > delta_share * len(pages):
        return fresh_plan(pages, salt)
    return SearchPlan(base.bundle, make_bundle("delta", delta, salt) if delta else None, superseded)


def fresh_plan(pages: Mapping[str, str], salt: str) -> SearchPlan:
    """A new base over every page, and no delta."""
    return SearchPlan(make_bundle("base", pages, salt) if pages else None, None, ())


def superseded_ids(plan: SearchPlan, base: IndexedBundle) -> list[str]:
    return sorted(base.ids[path] for path in plan.superseded if path in base.ids)


def ids_clash(plan: SearchPlan, base: IndexedBundle, delta: IndexedBundle | None) -> bool:
    """Whether a delta page has the id of a superseded base page: dropping one would drop both."""
    return delta is not None and not set(delta.ids.values()).isdisjoint(superseded_ids(plan, base))


def pagefind_version() -> str:
    """The installed Pagefind, read from the package metadata (starting the binary costs a process)."""
    found = []
    for package in ("pagefind", "pagefind_bin", "pagefind_bin_extended"):
        try:
            found.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            continue
    return ", ".join(found) or "pagefind (version unknown)"


def write_bundle_list(site: Path, plan: SearchPlan, superseded: Sequence[str]) -> None:
    """The list the search page reads: the base is loaded, the delta merged into it, the superseded ids dropped."""
    listing = {"bundles": [bundle.folder for bundle in plan.bundles], "superseded": list(superseded)}
    (site / BUNDLE_LIST).write_text(json.dumps(listing), encoding="utf-8")


def read_indexed(folder: Path, kind: BundleKind, salt: str) -> IndexedBundle | None:
    """The bundle in `folder` as a build left it, or None when it is not one made with `salt`.

    The folder's name must be the key of the pages its `pincite-pages.json` lists, under this
    salt: a bundle made by other templates or another Pagefind is never taken for this one's.
    """
    try:
        rows = json.loads((folder / PAGE_IDS).read_text(encoding="utf-8"))["pages"]
        pages = {str(path): str(key) for path, key, _id in rows}
        ids = {str(path): str(page_id) for path, _key, page_id in rows if page_id is not None}
    except (OSError, ValueError, KeyError, TypeError):
        return None
    bundle = make_bundle(kind, pages, salt)
    return IndexedBundle(bundle, ids) if bundle.folder == folder.name else None


def index_bundles(site: Path, bundles: Sequence[Bundle], target: Path, stage: Path) -> float:
    """Index each bundle's pages (under `site`) into `target/<folder>`; the seconds it took.

    Each bundle is one Pagefind run over a staging folder holding hard links to just its
    pages, at their paths in the site, so result URLs are the pages' own. Runs go side by
    side when more than one core is usable.
    """
    if not bundles:
        return 0.0
    started = time.monotonic()
    workers = max(1, min(len(bundles), usable_cores()))
    try:
        with ThreadPoolExecutor(workers) as pool:  # threads wait on Pagefind processes
            list(pool.map(lambda bundle: _index_bundle(site, bundle, target, stage), bundles))
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return time.monotonic() - started


def _index_bundle(site: Path, bundle: Bundle, target: Path, stage: Path) -> None:
    pages = stage / bundle.folder
    for rel in bundle.page_files():
        staged = pages / rel
        staged.parent.mkdir(parents=True, exist_ok=True)
        page = (site / rel).read_bytes()
        searched = searched_part(page)
        if searched is not page:
            staged.write_bytes(searched)
            continue
        try:
            os.link(site / rel, staged)
        except OSError:
            staged.write_bytes(page)
    output = target / bundle.folder
    run_pagefind(pages, output)
    _write_page_ids(output, bundle)


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
    rows = [[path, key, by_url.get("/" + doc_page_path(path))] for path, key in bundle.pages]
    (output / PAGE_IDS).write_text(json.dumps({"pages": rows}, ensure_ascii=False), encoding="utf-8")


def fragment_ids(output: Path) -> dict[str, str]:
    """Each page's URL in a Pagefind bundle → its id (the name of its fragment file)."""
    found: dict[str, str] = {}
    folder = output / "fragment"
    for fragment in folder.iterdir() if folder.is_dir() else ():
        data = gzip.decompress(fragment.read_bytes())
        record = json.loads(data.removeprefix(FRAGMENT_SIGNATURE))
        found[str(record["url"])] = fragment.name.removesuffix(".pf_fragment")
    return found


def run_pagefind(pages: Path, output: Path) -> None:
    """Pagefind over the document pages under `pages` (as they stand in a site), into `output`."""
    cmd = [sys.executable, "-m", "pagefind", "--site", str(pages), "--glob", "doc/**/*.html"]
    cmd += ["--output-path", str(output), "--force-language", "en", "--silent"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).strip().splitlines()
        raise PinciteError(
            f"Pagefind could not index the pages of search bundle {output.name}: "
            f"{detail[-1] if detail else 'no output'}",
            hint="check that the pagefind[bin] package is installed (pip install 'pagefind[bin]')",
        )
