"""The site's search index as several Pagefind bundles, so a build indexes only what changed.

Pagefind has no incremental mode: one run indexes every page it is given. The document pages
are therefore split into buckets by a stable hash of the document path, and each bucket is a
bundle of its own in `pagefind/<bucket>-<key>/`. The browser loads the first bundle and merges
the others into it (Pagefind's `mergeIndex`); `search-bundles.json` at the site root lists them.

A bundle's folder name carries a key of everything it was made from (each page's path and
content key, the site fingerprint, Pagefind's version), so a bundle is immutable: an unchanged
bucket keeps its folder from build to build and only a bucket with a changed, added or removed
page is indexed again. Like version pages, bundles are not copied from site to site: the live
`pagefind/` folder gains the new bundles and moves into the new site (see `builder._swap`).

The number of buckets trades build time against what a reader downloads: Pagefind splits
each bundle's word index into chunks of roughly the same size whatever the bundle's size, and
a query fetches a chunk per query word from every bundle (BENCHMARKS.md, "Search bundles").
"""

from __future__ import annotations

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

from indexer.errors import PinciteError
from indexer.machine import usable_cores
from indexer.site.render import doc_page_path

SEARCH_FOLDER = "pagefind"
BUNDLE_LIST = "search-bundles.json"


@dataclass(frozen=True)
class Bundle:
    """One bucket of document pages and the Pagefind bundle made of them."""

    bucket: int
    pages: tuple[tuple[str, str], ...]  # (document path, page content key), sorted by path
    salt: str  # what every bundle of the site depends on: the site fingerprint, Pagefind's version

    @cached_property
    def folder(self) -> str:
        """The bundle's folder under `pagefind/`: its bucket, then a key of what it was made from."""
        made_from = json.dumps([self.salt, self.pages], ensure_ascii=False).encode("utf-8")
        return f"{self.bucket:02d}-{hashlib.sha256(made_from).hexdigest()[:16]}"

    def page_files(self) -> list[str]:
        return [doc_page_path(path) for path, _key in self.pages]


def bundle_count(pages: int, pages_per_bundle: int, most: int, previous: int = 0) -> int:
    """How many buckets a site of `pages` document pages gets: a power of two, at most `most`.

    The previous count is kept while it stays within a factor of two of the wanted one, so a
    site hovering around a threshold does not re-index every page at each build.
    """
    wanted = 1
    while wanted * 2 <= most and wanted * pages_per_bundle < pages:
        wanted *= 2
    power_of_two = previous > 0 and previous & (previous - 1) == 0
    if power_of_two and wanted // 2 <= previous <= min(wanted * 2, most):
        return previous
    return wanted


def bucket_of(path: str, buckets: int) -> int:
    """A document's bucket: a hash of its path, so the bucket never depends on other documents."""
    digest = hashlib.sha256(path.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % buckets


def plan_bundles(page_keys: Mapping[str, str], buckets: int, salt: str) -> list[Bundle]:
    """The bundles of the document pages `page_keys` (path → content key); empty buckets get none."""
    members: dict[int, list[tuple[str, str]]] = {}
    for path, key in page_keys.items():
        members.setdefault(bucket_of(path, buckets), []).append((path, key))
    return [Bundle(bucket, tuple(sorted(pages)), salt) for bucket, pages in sorted(members.items())]


def pagefind_version() -> str:
    """The installed Pagefind, read from the package metadata (starting the binary costs a process)."""
    found = []
    for package in ("pagefind", "pagefind_bin", "pagefind_bin_extended"):
        try:
            found.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            continue
    return ", ".join(found) or "pagefind (version unknown)"


def write_bundle_list(site: Path, bundles: Sequence[Bundle]) -> None:
    """The list the search page reads: the first bundle is loaded, the others merged into it."""
    listing = {"bundles": [bundle.folder for bundle in bundles]}
    (site / BUNDLE_LIST).write_text(json.dumps(listing), encoding="utf-8")


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
        link = pages / rel
        link.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(site / rel, link)
        except OSError:
            shutil.copyfile(site / rel, link)
    _run_pagefind(pages, target / bundle.folder)


def _run_pagefind(pages: Path, output: Path) -> None:
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
