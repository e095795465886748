"""`pincite build`'s last stage: the static site (docs/design.md#d9 and docs/design.md#d12).

The pipeline: read the index → version pages (one per distinct blob, immutable, reused
from the previous site) → document pages of the built commit (reused while their
version is unchanged) → per-path history files for the drift banner → home, search and
citation pages → Pagefind bundles of the document pages (a base kept from build to build, and a
delta of the pages changed since) → update the site in place, or swap the new folder in.

A manifest (`.pincite-site/`, sharded by path: indexer/site/manifest.py) records what each reused
file was rendered from; a page is reused only when that key is unchanged. What a build writes is
staged in a folder beside the site, so a failed build leaves the previous site whole. Over a site
whose manifest it trusts (made under the same fingerprint), the build stages only the files it
writes and moves them in under a journal (`_update_in_place`, `finish_update`): its unchanged
pages stay where they are. Any other site is replaced whole: the staged folder is a complete
site, renamed over it (`_swap`).
"""

from __future__ import annotations

import contextlib
import functools
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, KeysView, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment, TemplateError, TemplateSyntaxError

from indexer import __version__
from indexer.config import Config
from indexer.errors import ConfigError, UsageError, writing
from indexer.files import atomic_write
from indexer.index.build import BuildSummary
from indexer.index.store import IndexReader, PathVersion, VersionMeta
from indexer.locks import exclusive_lock
from indexer.machine import pid_alive, terminated_as_exit
from indexer.progress import SILENT, Progress
from indexer.shapes import SiteJson
from indexer.site import docusaurus, pdf_pages
from indexer.site.asciidoc_view import available as asciidoc_available
from indexer.site.banner_data import BannerDataBuilder
from indexer.site.carry import Carry, IndexState, carry_over, doc_inputs, index_state, version_inputs
from indexer.site.cited_by import CitedBy, Scanned, collect
from indexer.site.corpus_titles import corpus_titles, shared_at_head
from indexer.site.head_texts import TEXTS_FILE, HeadTexts, head_texts, version_key
from indexer.site.history_pages import (
    Step,
    changes_key,
    changes_page_path,
    consecutive_steps,
    has_history_page,
    render_changes_page,
    render_diff_page,
)
from indexer.site.home import (
    HOME_FILE,
    FolderRows,
    FolderSections,
    SectionRenderer,
    folder_page_path,
    folders_now,
    home_layout,
)
from indexer.site.links import (
    BrokenLink,
    SiteTargets,
    above_roots,
    detect_docs_roots,
    framework_candidates,
    is_framework_file,
    link_report,
)
from indexer.site.manifest import (
    MANIFEST,
    PREVIOUS_REUSED,
    TOP,
    UPDATING,
    Manifest,
    has_manifest,
)
from indexer.site.pages import PageContext, citations_report, folder_neighbours, original_file
from indexer.site.places import CorpusPlaces
from indexer.site.places import Scanned as PlacesScanned
from indexer.site.pool import PageJob, render_all
from indexer.site.render import (
    doc_page_path,
    fingerprint,
    history_digits,
    history_shard,
    make_environment,
    root_prefix,
    template_folders,
)
from indexer.site.search_bundles import (
    SEARCH_FOLDER,
    Bundle,
    IndexedBundle,
    SearchPlan,
    dropped_ids,
    fresh_plan,
    ids_clash,
    index_bundles,
    pagefind_version,
    plan_search,
    read_indexed,
    thin_runtimes,
    write_bundle_list,
)
from indexer.site.vocabulary import ranked, words_file
from indexer.state import site_work_folder
from indexer.text.chunk import cut_key
from indexer.text.kinds import text_format
from indexer.text.language import folder_language
from indexer.vcs.repo import CommitInfo, GitRepo

COMMIT_PLACES = "commits"  # the published commits' places, by SHA prefix (`_commit_places`)
RETIRED = ("commits.json",)  # files an earlier pincite published that no build writes now

# Starts the key of a page whose rendering was stopped as hung; no page is reused under it.
HUNG_KEY = "hung|"


@dataclass
class SiteStats:
    """What a site build rendered, reused and indexed, and the broken links and over-budget views it found."""

    pages_rendered: int = 0
    pages_reused: int = 0
    history_written: int = 0
    history_reused: int = 0
    search_bundles_indexed: int = 0
    search_bundles_reused: int = 0
    search_pages_indexed: int = 0
    search_pages_superseded: int = 0
    pagefind_seconds: float = 0.0
    seconds: float = 0.0
    broken_links: list[BrokenLink] = field(default_factory=list)
    files_linked: int = 0
    # Files the build put into the site folder: those it wrote, when the site is updated in place
    # (its unchanged pages stay where they are); every page rendered, when it is replaced whole.
    files_written: int = 0
    # Documents read to find the citations in them: every one on a cold build, the changed ones after.
    citation_documents_read: int = 0
    # Documents whose rendered view was over budget (`indexer.site.budget`): path → why.
    shown_as_source: dict[str, str] = field(default_factory=dict)
    # PDFs some of whose pages as printed this build left out by their byte budget: path → why.
    pages_cut: dict[str, str] = field(default_factory=dict)
    # Document pages whose search records hold no metadata (`page_facts` found none of their facts
    # on a `template_dir`'s page), and the template that wrote them: warned of once (indexer.api).
    undescribed_pages: list[str] = field(default_factory=list)
    document_template: str = "document.html"
    # What the build made of the site it replaces: "none", "reused", or "ignored: why" (a manifest it cannot trust).
    previous_site: str = "none"
    # The keys this build computed (document pages, history files): every path's, or, where the
    # untouched paths' were carried over from the previous site (`carry`), the touched paths' alone.
    pages_keyed: int = 0
    history_keyed: int = 0
    versions_keyed: int = 0  # the version pages whose key was computed (the rest carried: `_carry_versions`)
    changes_keyed: int = 0  # the history pages whose key was computed (the rest carried: `_carry_changes`)
    folders_keyed: int = 0  # the folder sections (home page, folder pages) whose rows' key was computed
    # The document rows built for the home and folder pages: every document's, or, where the untouched
    # folders' figures and sections were kept (`home.FolderFacts`), the touched folders' documents' alone.
    rows_built: int = 0
    # The versions' texts read for the word counts (`head_texts`): every one at the built commit on a
    # cold build, those that came or went after.
    texts_read: int = 0
    # Whether the untouched paths' keys were carried over: "carried", or why not (indexer.site.carry).
    carry: str = "none"
    # The manifest's shard files read (every one the previous manifest names) and written (every one,
    # or, updated in place, those holding a record that changed): `indexer.site.manifest`.
    manifest_shards_read: int = 0
    manifest_shards_written: int = 0
    # The reST documents whose labels and glossary terms were read from their text (`rst_places`): every
    # one on a cold build, the blobs the previous site's manifest holds no record of otherwise.
    places_scanned: int = 0

    def to_json(self) -> SiteJson:
        return {
            "pages_rendered": self.pages_rendered,
            "pages_reused": self.pages_reused,
            "history_written": self.history_written,
            "history_reused": self.history_reused,
            "files_linked": self.files_linked,
            "citation_documents_read": self.citation_documents_read,
            "files_written": self.files_written,
            "broken_links": [b.to_json() for b in self.broken_links],
            "shown_as_source": [{"path": p, "reason": r} for p, r in sorted(self.shown_as_source.items())],
            "pages_cut": [{"path": p, "reason": r} for p, r in sorted(self.pages_cut.items())],
            "search_bundles_indexed": self.search_bundles_indexed,
            "search_bundles_reused": self.search_bundles_reused,
            "search_pages_indexed": self.search_pages_indexed,
            "search_pages_superseded": self.search_pages_superseded,
            "pagefind_seconds": round(self.pagefind_seconds, 3),
            "seconds": round(self.seconds, 3),
            "previous_site": self.previous_site,
            "pages_keyed": self.pages_keyed,
            "history_keyed": self.history_keyed,
            "versions_keyed": self.versions_keyed,
            "changes_keyed": self.changes_keyed,
            "folders_keyed": self.folders_keyed,
            "rows_built": self.rows_built,
            "texts_read": self.texts_read,
            "carry": self.carry,
            "manifest_shards_read": self.manifest_shards_read,
            "manifest_shards_written": self.manifest_shards_written,
            "places_scanned": self.places_scanned,
        }


def site_fingerprint(folders: Sequence[Path], config: Config) -> str:
    """What every reused page was rendered by: pincite, the templates and the settings pages show.

    A previous page is reused only under the same fingerprint, and CI's cache key of the site
    (`site_cache_key`) is a digest of it, so neither serves a page another pincite or other settings made.
    """
    # Pages depend on these settings, and on whether Asciidoctor renders AsciiDoc pages; their
    # passage anchors on how passages are cut (`passage_max_chars`, the Markdown parser, which
    # renders Markdown pages too): a page's key names its version's blob, not its row.
    renders = (
        " ".join(config.rst_role_urls),
        " ".join(config.site_docs_roots),
        str(asciidoc_available()),
        cut_key("markdown", config.passage_max_chars),
    )
    return fingerprint(
        folders,
        f"pincite {__version__}",
        config.site_title,
        config.site_url,
        str(config.site_publish_index),
        config.site_language,
        *renders,
    )


def site_cache_key(repo_root: Path, config: Config) -> str:
    """The part of a CI cache key that says which sites a build may reuse: one digest of everything
    the manifest's records are valid under (the fingerprint, Pagefind, the PDF page images' setting)."""
    fp = site_fingerprint(template_folders(repo_root, config.template_dir), config)
    under = f"{fp}|{pagefind_version()}|{pdf_pages.key(config.pdf_page_images, config.pdf_page_budget)}"
    return hashlib.sha256(under.encode("utf-8")).hexdigest()[:20]


def render_site(
    repo: GitRepo,
    config: Config,
    index_path: Path,
    out_dir: Path,
    summary: BuildSummary,
    progress: Progress | None = None,
) -> SiteStats:
    """Render the site for the index's built commit into `out_dir`, replacing the previous site whole."""
    out_dir = out_dir.absolute()
    with writing("the site", out_dir):
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        with _site_lock(out_dir), terminated_as_exit():
            return _render_locked(repo, config, index_path, out_dir, summary, progress or SILENT)


@contextlib.contextmanager
def _site_lock(out_dir: Path) -> Iterator[None]:
    """One build writes a site folder at a time (the index lock is released before the site)."""
    busy = UsageError(
        f"{out_dir}: another pincite build is writing this site",
        hint="wait for it to finish, or write this build's site elsewhere with --out",
    )
    with exclusive_lock(site_work_folder(out_dir) / "lock", busy):
        yield


def _render_locked(
    repo: GitRepo, config: Config, index_path: Path, out_dir: Path, summary: BuildSummary, progress: Progress
) -> SiteStats:
    started = time.monotonic()
    _check_replaceable(out_dir)
    finish_update(out_dir)  # an update an earlier build was stopped in: carried to its end first
    _remove_stale(out_dir)
    temp = site_work_folder(out_dir) / f"{os.getpid()}.tmp"
    temp.mkdir(parents=True)
    try:
        builder = _SiteBuilder(repo, config, index_path, out_dir, temp, summary, progress)
        stats = builder.run()
        if builder.in_place:
            trees, gone = builder.replaced_trees(), builder.gone()
        else:
            progress.stage("replacing the site")
            stats.files_written = stats.pages_rendered  # the whole site is new; its unchanged pages are linked
            adopted = [live for live in (builder.adopt_versions, builder.live_search) if live is not None]
            _swap(temp, out_dir, adopted)
            # What the new site no longer lists goes with the replaced site, removed without waiting.
            discarded = _discard_folder(out_dir)
            if builder.adopt_versions is not None:
                _prune(out_dir / "v", builder.needed_versions, discarded)
            if builder.live_search is not None:
                _prune_search(out_dir / SEARCH_FOLDER, builder.needed_bundles, discarded)
            _discard_replaced(out_dir)
    except TemplateError as exc:
        shutil.rmtree(temp, ignore_errors=True)
        where = f"{exc.filename}:{exc.lineno}: " if isinstance(exc, TemplateSyntaxError) else ""
        raise ConfigError(
            f"{where}site template error: {exc.message or exc}; the previous site in {out_dir} is unchanged",
            hint="fix the template in your template_dir (or remove the setting to use the shipped ones)",
        ) from exc
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise
    if builder.in_place:
        # Past this point the staged folder is the site's: stopped now, the next build completes the update.
        progress.stage("updating the site")
        stats.files_written = _update_in_place(out_dir, temp, trees, gone)
        _discard_replaced(out_dir)
    stats.seconds = time.monotonic() - started
    return stats


def _remove_stale(out_dir: Path) -> None:
    """Remove what killed builds left: their temporary sites (this build holds the lock, so all are stale).

    Earlier versions kept them beside the site as `.<name>.<pid>.tmp` (and `.tmp.search`) and
    their lock as `.<name>.lock`; those of processes no longer running are removed too.
    """
    for stale in site_work_folder(out_dir).glob("*.tmp*"):
        shutil.rmtree(stale, ignore_errors=True)
    for stale in out_dir.parent.glob(f".{glob.escape(out_dir.name)}.*.tmp*"):
        pid = stale.name[len(out_dir.name) + 2 :].split(".", 1)[0]
        if pid.isdigit() and not pid_alive(int(pid)):
            shutil.rmtree(stale, ignore_errors=True)
    with contextlib.suppress(OSError):
        out_dir.with_name(f".{out_dir.name}.lock").unlink()


def _document_template(repo_root: Path, template_dir: str | None) -> str:
    """The template a document page's facts come from, as a warning names it: a `template_dir`'s
    document page, else its base page (which writes `<main>`), else the shipped one."""
    if not template_dir:
        return "document.html"
    for name in ("document.html", "base.html"):
        if (repo_root / template_dir / name).is_file():
            return f"{template_dir.rstrip('/')}/{name}"
    return "document.html"


def check_site_target(out_dir: Path, repo_root: Path, roots: tuple[str, ...]) -> None:
    """Refuse, before any work, a site folder whose replacement would delete what pincite did not write.

    The folder is replaced whole, so it must not hold the repository, its git folder or a corpus
    root, and an existing folder must be an earlier site.
    """
    site, root = out_dir.resolve(), repo_root.resolve()
    protected = [root, root / ".git", *(root / r for r in roots)]
    for folder in protected:
        if site == folder or folder.is_relative_to(site) or (folder != root and site.is_relative_to(folder)):
            raise UsageError(
                f"{out_dir}: the site folder would replace {folder}; refusing",
                hint="write the site to a folder of its own (--out or `site_dir`), e.g. _site",
            )
    _check_replaceable(out_dir)


def _check_replaceable(out_dir: Path) -> None:
    """Never delete a folder pincite did not write: the site replaces only an earlier site."""
    if out_dir.exists() and (not out_dir.is_dir() or (any(out_dir.iterdir()) and not has_manifest(out_dir))):
        raise UsageError(
            f"{out_dir}: exists and is not a pincite site (no valid {TOP}); refusing to replace it",
            hint="choose another folder with --out, or empty this one yourself",
        )


def _swap(temp: Path, out_dir: Path, adopted: Sequence[Path]) -> None:
    """Put the new site in place of the old one.

    Version pages and search bundles are immutable, so they are not copied from site to
    site: the new ones are moved into the live folder (`v/`, `pagefind/`; adding entries
    changes nothing a reader can see), and that folder moves into the new site just before
    the two sites change places.
    """
    old = _discard_folder(out_dir)
    for live in adopted:
        staged = temp / live.name
        if staged.is_dir():
            for entry in os.listdir(staged):
                os.replace(staged / entry, live / entry)
            os.rmdir(staged)
        os.replace(live, staged)
    moved_old = False
    try:
        if out_dir.exists():
            os.replace(out_dir, old)
            moved_old = True
        os.replace(temp, out_dir)
    except BaseException:
        if moved_old and not out_dir.exists():
            os.replace(old, out_dir)
        for live in adopted:
            if not live.exists():
                os.replace(temp / live.name, live)
        with contextlib.suppress(OSError):
            old.rmdir()  # still empty unless it holds the old site, which then stays
        raise


# The record of an update in place (in the site's work folder): the staged folder, the folders it
# replaces whole, the files and folders that go. Written once the staged folder is complete.
JOURNAL = "update.json"


def _update_in_place(out_dir: Path, staged: Path, trees: list[str], gone: list[str]) -> int:
    """Move a build's staged files into the live site; the number of files moved.

    Only what the build wrote is staged (a one-file build: a few pages, the top files, the search
    delta); what it kept stays where it is, unread and unlinked. The journal is written before
    the first move, so an update stopped half-way is carried to its end by the next build
    (`finish_update`) before it reads the site: the manifest moves last, and it never describes
    pages that are not in place. Each file is replaced by a rename, so no reader gets half a file.
    """
    record = {"staged": staged.name, "trees": trees, "gone": gone}
    atomic_write(site_work_folder(out_dir) / JOURNAL, json.dumps(record).encode("utf-8"))
    return finish_update(out_dir)


def finish_update(out_dir: Path) -> int:
    """Carry out the update the journal records, if there is one (idempotent); the number of files moved."""
    work = site_work_folder(out_dir)
    try:
        record = json.loads((work / JOURNAL).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return 0
    except (OSError, ValueError) as exc:
        raise UsageError(
            f"{work / JOURNAL}: the record of an unfinished site update cannot be read ({exc})",
            hint=f"remove {out_dir} and its work folder {work}, and build the site again",
        ) from exc
    staged = work / str(record.get("staged", ""))
    trees, gone = record.get("trees"), record.get("gone")
    names = [str(record.get("staged", "")), *(trees or []), *(gone or [])]
    if not isinstance(trees, list) or not isinstance(gone, list) or not all(_inside(name) for name in names):
        raise UsageError(
            f"{work / JOURNAL}: not the record of a site update this pincite writes (a path outside the site)",
            hint=f"remove {out_dir} and its work folder {work}, and build the site again",
        )
    discarded = _discard_folder(out_dir)
    (out_dir / UPDATING).write_bytes(b"")
    moved = 0
    for rel in trees:  # folders replaced whole: a new search bundle, a PDF's pages published again
        if (staged / rel).is_dir():
            if (out_dir / rel).exists():
                _move(out_dir / rel, discarded / str(moved))
            (out_dir / rel).parent.mkdir(parents=True, exist_ok=True)
            _move(staged / rel, out_dir / rel)
            moved += 1
    for folder, _subfolders, names in os.walk(staged):
        for name in names:
            rel = os.path.relpath(os.path.join(folder, name), staged)
            if rel != TOP:
                os.makedirs(os.path.dirname(os.path.join(out_dir, rel)), exist_ok=True)
                _move(staged / rel, out_dir / rel)
                moved += 1
    if (staged / TOP).exists():
        _move(staged / TOP, out_dir / TOP)
        moved += 1
    for n, rel in enumerate(gone):
        target = out_dir / rel
        if target.is_dir():
            _move(target, discarded / f"gone-{n}")
        else:
            target.unlink(missing_ok=True)
        _remove_empty_folders(out_dir, target.parent)  # as a site written whole would not have them
    (out_dir / UPDATING).unlink(missing_ok=True)
    (work / JOURNAL).unlink()
    shutil.rmtree(staged, ignore_errors=True)
    return moved  # what went is in `discarded`, removed without waiting by the build (`_discard_replaced`)


def _remove_empty_folders(site: Path, folder: Path) -> None:
    """Remove `folder` and the folders above it, up to the site's, while they are empty."""
    while folder != site and folder.is_relative_to(site):
        try:
            folder.rmdir()
        except OSError:  # not empty (or gone already)
            if folder.exists():
                return
        folder = folder.parent


def _inside(rel: object) -> bool:
    """Whether a journal's entry names a place inside its folder: relative, without `..`."""
    return isinstance(rel, str) and bool(rel) and not os.path.isabs(rel) and ".." not in rel.split("/")


def _move(source: Path, target: Path) -> None:
    """One step of an update: a rename (a test stops an update here)."""
    os.replace(source, target)


def _discard_folder(out_dir: Path) -> Path:
    """A new folder beside the site for what it replaced; `_discard` removes every such folder.

    A folder of its own each time: the removal of an earlier build's may still be running.
    """
    return Path(tempfile.mkdtemp(suffix=".old", dir=site_work_folder(out_dir)))


def _discard_replaced(out_dir: Path) -> None:
    """Remove, without waiting, what this and earlier builds replaced or left (`*.old` folders)."""
    # Earlier versions kept replaced sites beside the site, as `.<name>.<...>.old`.
    legacy = out_dir.parent.glob(f".{glob.escape(out_dir.name)}.*.old")
    _discard(sorted([*site_work_folder(out_dir).glob("*.old"), *legacy]))


def _discard(folders: list[Path]) -> None:
    """Remove replaced sites (this build's, and any an interrupted removal left) without waiting.

    The new site is live already; unlinking the old one's files grows with the site (about a
    second at 10,000 documents), so a detached process does it while the build returns. Where
    no process can be started, the folders are removed here.
    """
    if not folders:
        return
    remove = "import shutil, sys\nfor folder in sys.argv[1:]: shutil.rmtree(folder, ignore_errors=True)"
    try:
        subprocess.Popen(
            [sys.executable, "-c", remove, *map(str, folders)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)


def _prune(versions: Path, needed: set[str], discarded: Path) -> None:
    """Move out the version pages no longer in the published history (after `history_start` moved)."""
    pages = [page for page in os.listdir(versions) if page.endswith(".html") and page[:-5] not in needed]
    if pages:
        (discarded / "v").mkdir()
    for page in pages:
        os.replace(versions / page, discarded / "v" / page)


def _prune_search(folder: Path, needed: set[str], discarded: Path) -> None:
    """Move out the search bundles the new site no longer lists (and an older site's single index).

    A replaced bundle holds thousands of files: unlinking them is left to `_discard`.
    """
    entries = [entry for entry in os.listdir(folder) if entry not in needed]
    if entries:
        (discarded / SEARCH_FOLDER).mkdir()
    for entry in entries:
        os.replace(folder / entry, discarded / SEARCH_FOLDER / entry)


def _history_digits_of(site: Path) -> int:
    """The hex digits naming the history files of the site at `site`, as its site.json says
    (2 when it says nothing: a site of an earlier pincite, or none)."""
    try:
        digits = json.loads((site / "site.json").read_text(encoding="utf-8")).get("history_digits", 2)
    except (OSError, ValueError, AttributeError):
        return 2
    return digits if isinstance(digits, int) and 2 <= digits <= 4 else 2


def _chosen_versions(
    paths: Iterable[str],
    by_path: dict[str, list[PathVersion]],
    metas: dict[int, VersionMeta],
    commits: int,
    blobs: set[str] | None = None,
) -> dict[str, tuple[VersionMeta, str]]:
    """The version page of each blob (of `blobs`, else every one) these paths held, with the path it names.

    A blob held by several paths (a copy, a move) names the path that held it first: the page is
    the same whoever builds it, at once or commit by commit.
    """
    chosen: dict[str, tuple[VersionMeta, str]] = {}
    held_from: dict[str, tuple[int, str]] = {}
    for path in paths:
        for pv in by_path[path]:
            meta = metas[pv.version_id]
            if meta.status != "ok" or (blobs is not None and meta.blob not in blobs):
                continue
            if (pv.first_seq, path) < held_from.get(meta.blob, (commits, "")):
                held_from[meta.blob] = (pv.first_seq, path)
                chosen[meta.blob] = (meta, path)
    return chosen


def _read_shard(file: Path) -> dict[str, Any]:
    try:
        entries = json.loads(file.read_text(encoding="utf-8"))["paths"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return entries if isinstance(entries, dict) else {}


PAGER_KEY = "\0pager:"  # where a document page's key ends with its previous and next documents


def searched_key(key: str) -> str:
    """A document page's key without its previous/next links: what Pagefind reads of the page."""
    return key.split(PAGER_KEY, 1)[0]


def _stamp(file: str) -> str | None:
    """A file's size and modification time (ns), as a manifest records a page written; None when it is gone."""
    try:
        st = os.stat(file)
    except OSError:
        return None
    return f"{st.st_size}:{st.st_mtime_ns}"


def _stamp_holds(recorded: str | None, file: str) -> bool:
    """Whether `file` is still the one written when `recorded` was taken: there, of that size, of that time.

    The time is also taken in whole seconds: an archive that keeps seconds only (a CI cache's tar)
    brings a page back with its time cut so, and the page is the same. An edit keeps neither.
    """
    now = _stamp(file)
    if recorded is None or now is None:
        return False
    if now == recorded:
        return True
    size, _, ns = recorded.partition(":")
    return ns.isdigit() and now == f"{size}:{int(ns) // 1_000_000_000 * 1_000_000_000}"


def _records(kept: list[list[str]]) -> list[tuple[str, str]]:
    return [(str(url), str(kind)) for url, kind in kept]


def _link_or_copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _home_row(ctx: PageContext, path: str, pv: PathVersion, metas: dict[int, VersionMeta]) -> dict[str, Any]:
    """A document's row in its folder's section (home_folder.html)."""
    meta = metas[pv.version_id]
    # As PurePosixPath's parent and name, without making 10,000 path objects.
    folder, _, name = path.rpartition("/")
    return {
        "path": path,
        "folder": folder or ".",
        "name": name,
        "meta": meta,
        "href": doc_page_path(path) if meta.status == "ok" else None,
        "change": ctx.commits[pv.first_seq],
    }


def _blobs_held(paths: Iterable[str], by_path: dict[str, list[PathVersion]], metas: dict[int, VersionMeta]) -> set[str]:
    """The blobs of every version these paths held, at any commit of the history (not only the built one)."""
    return {metas[pv.version_id].blob for path in paths for pv in by_path.get(path, ())}


def _version_ids(metas: dict[int, VersionMeta]) -> dict[str, int]:
    """Every version with a text by its key for the word counts (`version_key`)."""
    return {version_key(meta): vid for vid, meta in metas.items() if meta.status == "ok"}


class _VersionIds(Mapping[str, int]):
    """The ids of the versions that came or went, and every version's if another is asked for."""

    def __init__(self, known: dict[str, int], every: Callable[[], dict[str, int]]) -> None:
        self.known, self.every = known, every
        self._all: dict[str, int] | None = None

    def __getitem__(self, key: str) -> int:
        if key in self.known:
            return self.known[key]
        if self._all is None:
            self._all = self.every()
        return self._all[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.every() if self._all is None else self._all)

    def __len__(self) -> int:
        return len(self.every() if self._all is None else self._all)


class _SiteBuilder:
    def __init__(
        self,
        repo: GitRepo,
        config: Config,
        index_path: Path,
        previous: Path,
        out: Path,
        summary: BuildSummary,
        progress: Progress,
    ):
        self.repo, self.config, self.previous, self.out, self.summary = repo, config, previous, out, summary
        self.progress = progress
        # Pagefind runs in a thread beside the other stages: it counts its pages here, and the
        # build's own thread reports them (progress is told from one thread).
        self.search_pages: int | None = None
        self.search_pages_done = 0
        self.index_path = index_path
        self.reader = IndexReader(index_path)
        self.stats = SiteStats()
        self.folders = template_folders(repo.root, config.template_dir)
        self.env: Environment = make_environment(self.folders, sandboxed=config.template_dir is not None)
        self.fp = site_fingerprint(self.folders, config)
        self.stats.document_template = _document_template(repo.root, config.template_dir)
        self.old, self.stats.previous_site = Manifest.load(previous)
        self.stats.manifest_shards_read = len(self.old.read)
        self.new = Manifest(self.fp)
        # A site whose manifest is trusted and was made under the same fingerprint is updated in
        # place: the manifests say which of its files go. Any other is replaced whole.
        self.in_place = self.stats.previous_site == PREVIOUS_REUSED and self.old.fingerprint == self.fp
        self.republished: set[str] = set()  # PDF versions whose pages as printed were published again
        self.pages_kept: set[str] = set()  # and those whose pages were kept as they are
        self.kept_sections = FolderSections(self.fp)
        self.fresh_sections = FolderSections(self.fp)
        self.adopt_versions: Path | None = None
        self.needed_versions: set[str] = set()
        self.live_search: Path | None = None
        self.needed_bundles: set[str] = set()
        self.linked_files: dict[str, str] = {}
        self.previous_folder, self.out_folder = os.fspath(previous), os.fspath(out)
        self.folders_made: set[str] = set()
        self.made_bundles: set[str] = set()
        self.folder_languages: dict[str, str] = {}
        self.carry: Carry | None = None
        self.history_shards: set[str] = set()  # the history shards written or kept that hold paths (`_histories`)
        self.history_digits = 2  # the hex digits naming a history shard (`render.history_digits`)
        self.previous_commits = 0  # the previous site's first-parent line's length, when it is carried
        self.commit_files: set[str] = set()  # the files of commit places written or kept (`_commit_places`)
        self.previous_history_digits = _history_digits_of(previous)
        self.frameworks: dict[str, str] = {}
        self.intervals = 0  # the index's intervals (rows of path_versions): they size the history shards

    def run(self) -> SiteStats:
        try:
            commits = self.reader.commits()
            self._carry_over(commits)
            by_path: dict[str, list[PathVersion]] = {}
            intervals = self.reader.all_path_versions()
            self.intervals = len(intervals)
            for pv in intervals:
                by_path.setdefault(pv.path, []).append(pv)
            head_seq = len(commits) - 1
            all_metas = self.reader.version_metas()
            shared = shared_at_head(all_metas, by_path, head_seq)
            self.new.version_inputs = version_inputs(shared)
            metas = corpus_titles(all_metas, by_path, head_seq, self.reader, shared)
            ctx = PageContext(self.config, commits, self.repo, self.env, self.reader)
            ctx.history_paths = frozenset(p for p, pvs in by_path.items() if has_history_page(pvs))
            self._static()
            heads = {p: pvs[-1] for p, pvs in by_path.items() if pvs[-1].last_seq == head_seq}
            ctx.doc_paths = frozenset(p for p, pv in heads.items() if metas[pv.version_id].status == "ok")
            # Citations first: a PDF version's pages as printed spend their byte budget on the cited pages.
            self.progress.stage("finding citations")
            ctx.cited_by = self._cited_by(commits[-1].sha, heads, metas)
            self._versions(ctx, by_path, metas)
            self._documents(ctx, heads, metas)
            with ThreadPoolExecutor(max_workers=1) as pool:
                # Pagefind reads the document pages alone, all written by now: it runs (in processes
                # of its own) beside the rest. Leaving the block waits for it, on failure too.
                search = pool.submit(self._search)
                self.progress.stage("linked files")
                self._linked_files()
                self._histories(commits, metas, by_path)
                self._changes(ctx, metas, by_path)
                self.progress.stage("home and folder pages")
                self._top_pages(ctx, heads, metas, by_path)
                self._publish_index()
                self._await_search(search)
            self.new.save(self.out, self.old, self.in_place)
            self.stats.manifest_shards_written = len(self.new.written)
        finally:
            self.reader.close()
        return self.stats

    def _await_search(self, search: Future[None]) -> None:
        """Wait for Pagefind's thread, reporting the pages it has indexed as a stage of its own."""
        while self.search_pages is None and not search.done():
            wait([search], timeout=0.05)  # its plan, made first, says how many pages it indexes
        self.progress.stage("Pagefind search index", self.search_pages)
        reported = 0
        while True:
            finished = bool(wait([search], timeout=0.2, return_when=FIRST_COMPLETED).done)
            done = self.search_pages_done
            if done > reported:
                self.progress.advance(done - reported)
                reported = done
            if finished:
                search.result()
                return

    def _carry_over(self, commits: list[CommitInfo]) -> None:
        """Record the index this site is built from, and find what the previous site's records may give as they are."""
        now = index_state(self.reader, commits)
        self.new.index = now.to_json()
        if not self.in_place:
            self.stats.carry = "no site updated in place"
            return
        # The paths the index update changed since the previous index (None when it walked in full);
        # added to the site's own git diff, never in place of it: a build without a site may lie between.
        index_changed = self.summary.changed_paths
        previous = IndexState.from_json(self.old.index)
        self.carry, self.stats.carry = carry_over(self.repo, self.reader, previous, now, commits, index_changed)
        self.previous_commits = previous.commits if previous is not None else 0

    # -- an update in place ----------------------------------------------------------------
    def replaced_trees(self) -> list[str]:
        """The folders this build staged whole, each to replace the live one: new search bundles,
        the pages as printed of PDF versions published again."""
        trees = [f"{SEARCH_FOLDER}/{folder}" for folder in sorted(self.made_bundles)]
        return trees + [f"{pdf_pages.PAGES_DIR}/{blob}" for blob in sorted(self.republished)]

    def gone(self) -> list[str]:
        """The files and folders of the live site that this build's site no longer holds, from the two manifests."""
        old, new = self.old, self.new
        # Differences of the two manifests' key sets (in C, not a loop over every record), in order.
        gone = [f"v/{blob}.html" for blob in sorted(old.versions.keys() - new.versions.keys())]
        # A PDF version's pages as printed go unless kept or published again (gone with the version,
        # or turned off by the settings: then nothing is staged for them).
        staged_pages = self.out / pdf_pages.PAGES_DIR
        # The PDF versions the previous site published (as files/<blob>.pdf).
        printed = [rel[6:-4] for rel in old.files if rel.startswith("files/") and rel.endswith(".pdf")]
        gone += [
            f"{pdf_pages.PAGES_DIR}/{blob}"
            for blob in printed
            if blob not in self.pages_kept and not (staged_pages / blob).is_dir()
        ]
        gone += sorted(old.files.keys() - new.files.keys())
        gone += [rel for rel in RETIRED if (self.previous / rel).exists()]
        gone += self._previous_files_not_in(COMMIT_PLACES, self.commit_files)
        gone += [doc_page_path(path) for path in sorted(old.docs.keys() - new.docs.keys())]
        gone += self._gone_history_files()
        gone += [changes_page_path(path) for path in sorted(old.changes.keys() - new.changes.keys())]
        gone += sorted(old.diffs.keys() - new.diffs.keys())
        folder_pages = [
            {name.split("\0")[0] for name in kept.sections} for kept in (self.kept_sections, self.fresh_sections)
        ]
        gone += sorted(folder_pages[0] - folder_pages[1] - {"index.html"})
        gone += [f"{MANIFEST}/{shard}.json" for shard in new.emptied]  # shards whose records all went
        if self.live_search is not None:
            gone += [
                f"{SEARCH_FOLDER}/{entry}"
                for entry in sorted(os.listdir(self.live_search))
                if entry not in self.needed_bundles
            ]
        return gone

    # -- pieces ------------------------------------------------------------------------
    def _static(self) -> None:
        target = self.out / "static"
        for folder in reversed(self.folders):
            if (folder / "static").is_dir():
                shutil.copytree(folder / "static", target, dirs_exist_ok=True)

    def _reuse(self, old_kind: dict[str, str], name: str, key: str, rel: str) -> bool:
        """Link the previous site's `rel` into the new one when it was made from the same `key`."""
        return old_kind.get(name) == key and self._link_previous(rel)

    def _link_previous(self, rel: str) -> bool:
        """Keep the previous site's file `rel`: where the site is updated in place it stays as it is,
        else it is hard-linked into the new site (a copy across file systems).

        False when the previous site has no such file. Called for every unchanged page (tens of
        thousands), so it makes plain os calls: a link, and a folder only the first time it is needed.
        """
        source, target = f"{self.previous_folder}/{rel}", f"{self.out_folder}/{rel}"
        if self.in_place:  # the file stays where it is
            return os.path.isfile(source)
        folder = target.rpartition("/")[0]
        if folder not in self.folders_made:
            os.makedirs(folder, exist_ok=True)
            self.folders_made.add(folder)
        try:
            os.link(source, target)
        except FileNotFoundError:
            return False
        except OSError:
            if not os.path.isfile(source):
                return False
            shutil.copy2(source, target)
        return True

    def _versions(self, ctx: PageContext, by_path: dict[str, list[PathVersion]], metas: dict[int, VersionMeta]) -> None:
        same_fp = self.old.fingerprint == self.fp
        live = self.previous / "v"
        live_pages: set[str] = set()
        if same_fp and live.is_dir():
            self.adopt_versions = live
            live_pages = set(os.listdir(live))
        carried = self._carry_versions(by_path, metas, live_pages, len(ctx.commits))
        if carried is None:
            chosen = _chosen_versions(by_path, by_path, metas, len(ctx.commits))
        else:
            chosen, kept = carried
            self.new.versions.update(kept)
            self.stats.pages_reused += len(kept)
        self.stats.versions_keyed = len(chosen)
        self.needed_versions = set(chosen) | self.new.versions.keys()
        self.progress.stage("version pages", len(chosen))
        jobs: list[PageJob] = []
        for blob, (meta, path) in sorted(chosen.items()):
            rel = f"v/{blob}.html"
            # The page names its path and shows its title, the corpus's to say (corpus_titles): a
            # version whose title turns generic (or stops being so) is rendered again, and no other.
            key = f"{meta.identity}|{path}|{meta.title}"
            # It links its path's document page and history page, for a reader without JavaScript,
            # when they are there: rendered again when one comes or goes, as no other page links it.
            key += f"|{int(path in ctx.doc_paths)}{int(path in ctx.history_paths)}"
            original = original_file(meta, path)
            if original:
                file_key = self.new.files[original] = f"{blob}:{original}"
                if not self._reuse(self.old.files, original, file_key, original):
                    target = self.out / original
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(self.repo.read_blob(blob))
            printed = original is not None and original.endswith(".pdf")
            cited = ctx.cited_by.version_lines(blob) if ctx.cited_by and printed else []
            if printed:
                key += "|" + pdf_pages.key(self.config.pdf_page_images, self.config.pdf_page_budget)
                key += f"|cited={json.dumps(cited)}" if cited else ""  # the pages shown first
            self.new.versions[blob] = key
            reused = (
                self.adopt_versions is not None and self.old.versions.get(blob) == key and f"{blob}.html" in live_pages
            )
            if printed and original is not None and reused and self._link_pages(blob):
                self.pages_kept.add(blob)
            elif printed and original is not None:
                self._publish_pages(ctx, meta, original, path, cited)
                self.republished.add(blob)
            if reused:
                self.stats.pages_reused += 1
                self.progress.advance()
                continue
            jobs.append(PageJob(meta, path, self.out / rel))
        for _result in render_all(ctx, jobs, self.index_path):
            self.stats.pages_rendered += 1
            self.progress.advance()

    def _carry_versions(
        self,
        by_path: dict[str, list[PathVersion]],
        metas: dict[int, VersionMeta],
        live_pages: set[str],
        commits: int,
    ) -> tuple[dict[str, tuple[VersionMeta, str]], dict[str, str]] | None:
        """The version pages to key (blob → version and path) and the keys carried over as the previous
        site recorded them; None when nothing may be carried (then every version page is keyed).

        Along a first-parent line that only grew (`self.carry`), a blob no touched path holds keeps the
        path that held it first, that path's document and history pages, and its title while the shared
        titles are the same (`carry.version_inputs`): its page's key is the one recorded. Keyed again
        whatever the carry: the blobs of the touched paths, the versions with a published original (a
        PDF's pages as printed show the cited lines first, and any document may cite them), and every
        carried page the site folder no longer holds.
        """
        if self.carry is None or self.adopt_versions is None or self.new.version_inputs != self.old.version_inputs:
            return None
        blobs = _blobs_held(self.carry.touched, by_path, metas)
        blobs.update(rel[6:-4] for rel in self.old.files if rel.startswith("files/") and rel.endswith((".pdf", ".txt")))
        kept = dict(self.old.versions)
        for blob in blobs:
            kept.pop(blob, None)
        # A carried page deleted from the site folder is rendered again (set differences, in C).
        missing = set(map("{}.html".format, kept)) - live_pages
        for name in missing:
            blobs.add(name[:-5])
            del kept[name[:-5]]
        holders = self._holding(blobs, by_path.keys())
        chosen = _chosen_versions(sorted(holders), by_path, metas, commits, blobs)
        return chosen, kept

    def _link_pages(self, blob: str) -> bool:
        """Link the previous site's pages as printed of `blob` into the new one; False if it has none."""
        rel = f"{pdf_pages.PAGES_DIR}/{blob}"
        try:
            names = os.listdir(f"{self.previous_folder}/{rel}")
        except OSError:
            return False
        return bool(names) and all(self._link_previous(f"{rel}/{name}") for name in names)

    def _publish_pages(
        self, ctx: PageContext, meta: VersionMeta, original: str, path: str, cited: list[tuple[int, int]]
    ) -> None:
        """Render (or take from the cache) a PDF version's pages as printed, and their figures for its page.

        Only the figures' markup is kept until the version pages are rendered, not the images or boxes.
        """
        blob = meta.blob
        published = pdf_pages.publish(
            self.out,
            blob,
            lambda: self.repo.read_blob(blob),
            self.reader.version_text(meta.id),
            meta.page_starts,
            meta.identity,
            self.config.pdf_page_images,
            self.repo.root,
            meta.notes,
            pdf_bytes=meta.size,
            budget=self.config.pdf_page_budget,
            cited_lines=cited,
        )
        if published is not None and published.cut_by_budget:
            self.stats.pages_cut[path] = published.cut_by_budget
        if published is not None:
            root = root_prefix(f"v/{blob}.html")
            ctx.pdf_figures[blob] = pdf_pages.figures(published, root, root + original)

    def _documents(self, ctx: PageContext, heads: dict[str, PathVersion], metas: dict[int, VersionMeta]) -> None:
        same_fp = self.old.fingerprint == self.fp
        targets = self._targets(ctx, heads, metas)
        cited = {p: ctx.cited_by.key(p) for p in ctx.cited_by.cited_paths()} if ctx.cited_by else {}
        places = targets.places.digest()
        routes = targets.docusaurus.routes if targets.docusaurus is not None else {}
        shared = doc_inputs(targets.titles, targets.files, self.frameworks, targets.docs_roots, cited, places, routes)
        self.new.doc_inputs = shared
        self.progress.stage("document pages", len(heads))
        carried = self.carry is not None and shared == self.old.doc_inputs
        todo = self._carry_documents(heads, targets) if carried else sorted(heads)
        # The folder neighbours of the pages keyed here (those of a carried page are in its key, unchanged).
        keyed_folders = {path.rpartition("/")[0] for path in todo}
        ctx.neighbours = folder_neighbours(
            {p: title for p, title in targets.titles.items() if p.rpartition("/")[0] in keyed_folders}
        )
        jobs: list[tuple[PageJob, str, str]] = []  # with the start and the end of its page's key
        for path in todo:
            pv = heads[path]
            meta = metas[pv.version_id]
            if meta.status != "ok":
                self.progress.advance()
                continue
            self.stats.pages_keyed += 1
            rel = doc_page_path(path)
            extra = ctx.snapshot_key(path)
            # A page is its version's text and the statuses of its link targets (a linked
            # document can appear or go without the page's own text changing).
            cited_key = cited.get(path, "")
            history = path in ctx.history_paths
            # Its title is the corpus's to say (corpus_titles): part of the key, beside its version.
            intro = ctx.commits[pv.first_seq].sha
            base = f"{meta.blob}|{meta.identity}|{meta.title}|{intro}|{extra}|{cited_key}|{history}|"
            # The previous and next documents of its folder, which the page links by title: the end
            # of the key, which search leaves out (`searched_key`: Pagefind does not read them).
            pager = PAGER_KEY + json.dumps([[n.path, n.title] if n else None for n in ctx.neighbours.get(path, ())])
            kept = self.old.links.get(path) if self.old.docs.get(path, "").startswith(base) else None
            if same_fp and kept is not None:
                key = base + targets.state(path, _records(kept)) + pager
                if self._kept_page(path) and self._reuse(self.old.docs, path, key, rel):
                    self._links_of(path, _records(kept), targets, key)
                    self._over_budget(path, self.old.over_budget.get(path))
                    self.stats.pages_reused += 1
                    self.progress.advance()
                    continue
            jobs.append((PageJob(meta, path, self.out / rel, pv), base, pager))
        rendered = render_all(ctx, [job for job, _base, _pager in jobs], self.index_path, targets)
        for (job, base, pager), result in zip(jobs, rendered, strict=True):
            records = result.records
            self._links_of(job.path, records, targets, base + targets.state(job.path, records) + pager)
            self._over_budget(job.path, result.over_budget)
            if result.again:  # stopped as hung: a key no build makes, so the next renders the page again
                self.new.docs[job.path] = HUNG_KEY + self.new.docs[job.path]
            self.new.stamps[job.path] = _stamp(os.fspath(job.target)) or ""
            self.stats.pages_rendered += 1
            self.progress.advance()
        # In path order whichever pages were carried, reused or rendered: the report is the same either way.
        self.stats.broken_links.sort(key=lambda broken: broken.document)

    def _carry_documents(self, heads: dict[str, PathVersion], targets: SiteTargets) -> list[str]:
        """Carry the untouched pages' keys over as the previous site recorded them; the paths left to key, in order.

        Only called when nothing their keys share with other paths changed (`carry.doc_inputs`):
        a page of a path no new commit touched then has the key it had, and stays as it is.
        """
        assert self.carry is not None
        touched, old = self.carry.touched, self.old
        carried = {
            p: key
            for p, key in old.docs.items()
            if p not in touched and p in heads and not key.startswith(HUNG_KEY) and self._kept_page(p)
        }
        self.new.docs.update(carried)
        self.new.links.update({path: old.links.get(path, []) for path in carried})
        for path, kept in old.links.items():
            if kept and path in carried:  # its broken links and the files it publishes, against the same targets
                broken, published = link_report(path, _records(kept), targets)
                self.stats.broken_links.extend(broken)
                self.linked_files.update(published)
        for path, reason in old.over_budget.items():
            if path in carried:
                self._over_budget(path, reason)
        self.stats.pages_reused += len(carried)
        self.progress.advance(len(carried))
        return sorted(heads.keys() - carried.keys())

    def _kept_page(self, path: str) -> bool:
        """Whether the previous site's page of `path` is still the file it wrote (recorded as kept when so).

        A page deleted or edited in the site folder since is not kept, whatever its key: it is rendered again.
        """
        recorded = self.old.stamps.get(path)
        if not _stamp_holds(recorded, f"{self.previous_folder}/{doc_page_path(path)}"):
            return False
        self.new.stamps[path] = recorded or ""
        return True

    def _cited_by(self, head: str, heads: dict[str, PathVersion], metas: dict[int, VersionMeta]) -> CitedBy:
        """Who cites each document at the built commit (its page shows them), and citations.json."""
        pages = {p for p, pv in heads.items() if metas[pv.version_id].status == "ok"}
        kept = self.old.scanned
        previous = Scanned(kept["head"], tuple(kept["hinted"])) if kept else None
        found = collect(self.repo, self.config, self.index_path, head, pages, previous)
        if found.scanned is not None:
            self.new.scanned = {"head": found.scanned.head, "hinted": list(found.scanned.hinted)}
        self.stats.citation_documents_read = found.documents_read
        found.write(self.out)
        return found

    def _over_budget(self, path: str, reason: str | None) -> None:
        if reason is not None:
            self.new.over_budget[path] = self.stats.shown_as_source[path] = reason

    def _targets(self, ctx: PageContext, heads: dict[str, PathVersion], metas: dict[int, VersionMeta]) -> SiteTargets:
        """What links can reach: the document pages, and every file under the roots at the built commit."""
        documents = [p for p, pv in heads.items() if metas[pv.version_id].status == "ok"]
        entries = self.repo.tree_entries(ctx.commits[-1].sha, self.config.roots)
        files = {e.path: e.sha for e in entries if e.mode in ("100644", "100755")}
        titles = {p: metas[heads[p].version_id].title for p in documents}
        self.frameworks = self._frameworks(ctx, files)
        places = self._places({p: metas[heads[p].version_id] for p in documents if text_format(p) == "rst"})
        # The frameworks' files under the roots are among `frameworks` already: not looked for again in every file.
        roots = self.config.site_docs_roots or detect_docs_roots(self.frameworks, self.frameworks)
        files.update(self._static_files(ctx, files))
        front_matter = self._docusaurus_front_matter({p: heads[p].version_id for p in documents})
        return SiteTargets(documents, files, roots, self.frameworks, titles, places=places, front_matter=front_matter)

    def _places(self, documents: dict[str, VersionMeta]) -> CorpusPlaces:
        """The Sphinx labels and glossary terms of the reST documents (path → version): what each blob
        defines as this build or the previous site's manifest recorded it, read from the text where no
        record holds. The previous site's records are read only under this build's fingerprint (another
        pincite's scan may read other names or titles from the same text); a blob two paths hold is
        scanned once."""
        previous = self.old.places if self.old.fingerprint == self.fp else {}
        scanned: dict[str, PlacesScanned] = {}
        for path, meta in sorted(documents.items()):
            if meta.source_class != "text":
                continue
            kept = self.new.places.get(meta.blob) or previous.get(meta.blob)
            found = PlacesScanned.from_json(kept, meta.identity)
            if found is None:
                from indexer.site.rst_places import scan  # docutils loads only for a corpus with reST

                found = scan(self.reader.version_text(meta.id))
                self.stats.places_scanned += 1
                kept = found.to_json(meta.identity)
            self.new.places[meta.blob] = kept or found.to_json(meta.identity)
            scanned[path] = found
        return CorpusPlaces(scanned)

    def _static_files(self, ctx: PageContext, files: dict[str, str]) -> dict[str, str]:
        """The files of Docusaurus' static folders outside the roots (path → blob): a page's `/docs/assets/x.png`
        is one of them, served at the site's root. Only these folders: no other path outside the roots."""
        folders = tuple(folder for folder in docusaurus.static_folders(self.frameworks) if folder)
        if not folders:
            return {}
        entries = self.repo.tree_entries(ctx.commits[-1].sha, folders, literal=True)
        found = {e.path: e.sha for e in entries if e.mode in ("100644", "100755") and e.path not in files}
        held = self.repo.held_objects(sorted(set(found.values())))  # a file the clone lacks is no target
        return {path: blob for path, blob in found.items() if blob in held}

    def _docusaurus_front_matter(self, documents: dict[str, int]) -> dict[str, dict[str, str]]:
        """The `id:` and `slug:` of each document (path → version id) of a Docusaurus docs folder: they
        name its URL. Read from the index's texts, as the pages are: no blob is read from git again."""
        folders = docusaurus.content_folders(self.frameworks)
        found = {}
        for path, version_id in sorted(documents.items()):
            if any(not f or path.startswith(f + "/") for f in folders):
                fields = docusaurus.front_matter_fields(self.reader.version_text(version_id))
                if fields:
                    found[path] = fields
        return found

    def _frameworks(self, ctx: PageContext, files: dict[str, str]) -> dict[str, str]:
        """The docs frameworks' config files at the built commit, under the roots or above them (path → text)."""
        above = framework_candidates(self.config.roots)
        above += docusaurus.beside_candidates(self.repo.subfolders(ctx.commits[-1].sha, above_roots(self.config.roots)))
        entries = self.repo.tree_entries(ctx.commits[-1].sha, tuple(above), literal=True)
        found = {e.path: e.sha for e in entries if e.mode in ("100644", "100755")}
        found.update({path: sha for path, sha in files.items() if is_framework_file(path)})
        return {path: self.repo.read_blob(sha).decode("utf-8", "replace") for path, sha in found.items()}

    def _links_of(self, path: str, records: list[tuple[str, str]], targets: SiteTargets, key: str) -> None:
        self.new.docs[path] = key
        self.new.links[path] = [[url, kind] for url, kind in records]
        broken, published = link_report(path, records, targets)
        self.stats.broken_links.extend(broken)
        self.linked_files.update(published)

    def _linked_files(self) -> None:
        """Publish the corpus files that document pages link to (images, attachments) under files/."""
        for rel, blob in sorted(self.linked_files.items()):
            self.stats.files_linked += 1
            if rel in self.new.files:
                continue  # the original of an extracted document, already written
            key = self.new.files[rel] = f"{blob}:{rel}"
            if not self._reuse(self.old.files, rel, key, rel):
                target = self.out / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(self.repo.read_blob(blob))

    def _histories(
        self, commits: list[CommitInfo], metas: dict[int, VersionMeta], by_path: dict[str, list[PathVersion]]
    ) -> None:
        """Write the history shards; a shard whose paths all kept their inputs is the previous file."""
        builder = self.history_builder = BannerDataBuilder(self.repo, self.reader, commits, metas)
        (self.out / "history").mkdir(exist_ok=True)
        digits = self.history_digits = history_digits(self.intervals)
        renamed = digits != self.previous_history_digits  # every file has another name: none is kept
        shard_of = functools.partial(history_shard, digits=digits)
        keys = self._carry_history(by_path, len(commits) - 1)
        todo = {path: by_path[path] for path in sorted(by_path.keys() - keys.keys())}
        builder.prefetch_leads(todo)  # where paths gone from HEAD lead is part of their inputs
        inputs_of = {path: builder.inputs(path, pvs) for path, pvs in todo.items()}
        keys.update((path, inputs.key()) for path, inputs in inputs_of.items())
        self.stats.history_keyed = len(inputs_of)
        # What the entries written again ask git, in a few processes for them all.
        redo = [p for p in inputs_of if self.old.history.get(p) != keys[p]]
        builder.prefetch_entries({p: by_path[p] for p in redo})
        # A shard is the previous file, unread, when its paths are the same and none is redone.
        gone = self.old.history.keys() - by_path.keys()
        changed = {shard_of(p) for p in redo} | {shard_of(p) for p in gone}
        shards = None if renamed else self._history_shards(by_path, changed, inputs_of.keys())
        if shards is None:  # every path's shard (the carried paths' are those of their previous files)
            shards = {}
            for path in by_path:
                shards.setdefault(shard_of(path), []).append(path)
            if renamed:
                changed.update(shards)
        else:  # the shards not changed are the previous files, as the carried keys say
            self.new.history.update(keys)
            self.stats.history_reused += len(keys) - sum(len(paths) for paths in shards.values())
        self.progress.stage("history files", len(shards))
        # The shards still holding paths among those a path left (every one gone from them is in `changed`).
        self.history_shards = set(shards)
        for shard, paths in sorted(shards.items()):
            self.progress.advance()  # counted as it starts: the loop continues from several places
            rel = f"history/{shard}.json"
            if shard not in changed and self._link_previous(rel):
                self.new.history.update((path, keys[path]) for path in paths)
                self.stats.history_reused += len(paths)
                continue
            old_entries: dict[str, Any] | None = None
            entries: dict[str, Any] = {}
            for path in sorted(paths):
                self.new.history[path] = keys[path]
                if self.old.history.get(path) == keys[path]:
                    if old_entries is None:
                        old_entries = _read_shard(self.previous / rel)
                    if path in old_entries:
                        entries[path] = old_entries[path]
                        self.stats.history_reused += 1
                        continue
                entries[path] = builder.build(path, by_path[path])
                self.stats.history_written += 1
            if old_entries == entries and self._link_previous(rel):  # every entry kept: the file as it was
                continue
            (self.out / rel).write_text(json.dumps({"paths": entries}, ensure_ascii=False), encoding="utf-8")

    def _history_shards(
        self, by_path: dict[str, list[PathVersion]], changed: set[str], keyed: Iterable[str]
    ) -> dict[str, list[str]] | None:
        """With the untouched paths' keys carried over, the paths of the shards to write again alone: the
        previous file's paths still there and the paths keyed here (None: not carried, or a file unreadable).

        Each path's shard is a hash of its name, computed here for the keyed paths only.
        """
        if self.carry is None:
            return None
        shards: dict[str, list[str]] = {shard: [] for shard in changed}
        for shard in changed:
            rel = self.previous / f"history/{shard}.json"
            entries = _read_shard(rel)
            if not entries and rel.exists():
                return None
            shards[shard] = [path for path in entries if path in by_path]
        placed = {path for paths in shards.values() for path in paths}
        for path in keyed:
            shard = history_shard(path, self.history_digits)
            if shard in shards and path not in placed:
                shards[shard].append(path)
        return {shard: paths for shard, paths in shards.items() if paths}  # a shard left empty goes (`gone`)

    def _gone_history_files(self) -> list[str]:
        """The previous site's history files this build's site does not hold."""
        if self.history_digits != self.previous_history_digits:  # every file had another name
            return self._previous_files_not_in("history", {f"{shard}.json" for shard in self.history_shards})
        # A shard goes when the paths gone from it were its last (the shards are hashed only then).
        left_paths = self.old.history.keys() - self.new.history.keys()
        left = {history_shard(path, self.history_digits) for path in left_paths} - self.history_shards
        return sorted(f"history/{shard}.json" for shard in left)

    def _previous_files_not_in(self, folder: str, kept: set[str]) -> list[str]:
        """The previous site's files of `folder` whose names `kept` lacks, by listing the folder."""
        names = os.listdir(self.previous / folder) if (self.previous / folder).is_dir() else []
        return sorted(f"{folder}/{name}" for name in names if name not in kept)

    def _carry_history(self, by_path: dict[str, list[PathVersion]], head_seq: int) -> dict[str, str]:
        """The history files' keys of the untouched paths that hold a version at every commit from their
        first to the built one, as the previous site recorded them.

        Such a path's key is its versions and the commits they start at: unchanged while no new
        commit touches it. A path with a gap (moved or deleted, and maybe back) is keyed again:
        where it leads at the built commit can change with another path. Those are found by the
        index (`paths_not_held_throughout`), the rest by set differences: no loop over every path.
        """
        if self.carry is None:
            return {}
        keys = dict(self.old.history)
        again = (self.carry.touched | self.reader.paths_not_held_throughout(head_seq)) & keys.keys()
        for path in again.union(keys.keys() - by_path.keys()):
            del keys[path]
        return keys

    def _changes(self, ctx: PageContext, metas: dict[int, VersionMeta], by_path: dict[str, list[PathVersion]]) -> None:
        """History pages of the paths of more than one interval; diff pages between consecutive versions (immutable)."""
        builder, head_seq = self.history_builder, len(ctx.commits) - 1
        same_fp = self.old.fingerprint == self.fp
        carried = self._carry_changes(ctx, by_path)
        keyed = by_path if carried is None else carried[0]
        steps_of = {p: consecutive_steps(builder, by_path[p], metas, ctx.commits) for p in keyed}
        if carried is not None and self._carried_diffs_hold(steps_of):
            self.new.changes.update(carried[1])
            self.new.diffs.update(self.old.diffs)
            self.stats.pages_reused += len(carried[1])
        elif carried is not None:  # every path keyed after all; the steps already made are kept
            for p in by_path.keys() - steps_of.keys():
                steps_of[p] = consecutive_steps(builder, by_path[p], metas, ctx.commits)
        todo: dict[str, tuple[str, Step]] = {}
        for path, steps in sorted(steps_of.items()):
            for step in steps:
                if step is None or step.rel in self.new.diffs:
                    continue
                self.new.diffs[step.rel] = step.key
                if not (same_fp and self._reuse(self.old.diffs, step.rel, step.key, step.rel)):
                    todo[step.rel] = (path, step)
        self.progress.stage("history and diff pages", len(todo) + len(ctx.history_paths))
        builder.prefetch([(s.old_text, s.new_text) for _p, s in todo.values()])
        for rel, (path, step) in todo.items():
            render_diff_page(ctx, path, step, builder.hunks(step.old_text, step.new_text), self.out / rel)
            self.stats.pages_rendered += 1
            self.progress.advance()
        for path in sorted(steps_of):
            if path not in ctx.history_paths:
                continue
            self.progress.advance()
            pvs = by_path[path]
            rel, key = changes_page_path(path), changes_key(path, pvs, metas, ctx.commits)
            self.stats.changes_keyed += 1
            self.new.changes[path] = key
            if same_fp and self._reuse(self.old.changes, path, key, rel):
                self.stats.pages_reused += 1
                continue
            at_head = pvs[-1].last_seq == head_seq and metas[pvs[-1].version_id].status == "ok"
            render_changes_page(ctx, path, pvs, metas, steps_of[path], at_head, self.out / rel)
            self.stats.pages_rendered += 1

    def _carry_changes(
        self, ctx: PageContext, by_path: dict[str, list[PathVersion]]
    ) -> tuple[list[str], dict[str, str]] | None:
        """The paths whose history and diff pages are keyed here, and the other history pages' keys as the
        previous site recorded them, to carry over; None when none are carried (every path's are keyed).

        Along a first-parent line that only grew (`self.carry`), an untouched path's intervals, their
        versions and the commits that began them are the ones recorded, and so are its titles while the
        shared titles are the same (`carry.version_inputs`): its history page's key and its diff pages'
        are unchanged, and no diff page goes. Fail closed: a carried diff page the site folder no longer
        holds keys every path again; a carried history page it no longer holds keys that path again.
        """
        if self.carry is None or self.old.fingerprint != self.fp or self.new.version_inputs != self.old.version_inputs:
            return None
        live_diffs = self.previous / "diff"
        names = os.listdir(live_diffs) if live_diffs.is_dir() else []
        if self.old.diffs.keys() - set(map("diff/{}".format, names)):  # set differences, in C
            return None
        keyed = {path for path in self.carry.touched if path in by_path}
        changes = dict(self.old.changes)
        for path in keyed | (changes.keys() - ctx.history_paths):
            changes.pop(path, None)
        missing = [path for path in changes if not os.path.isfile(f"{self.previous_folder}/{changes_page_path(path)}")]
        for path in missing:
            del changes[path]
        return sorted(keyed.union(missing)), changes

    def _carried_diffs_hold(self, steps_of: dict[str, list[Step | None]]) -> bool:
        """Whether each diff page the keyed paths make is carried with the key they give it, or is new.

        A diff page two paths make (the same two versions in a row) names the first path's commits, by
        path order: one a touched path makes from other commits is the corpus's to say, not a carry's
        (then every path's pages are keyed, as a cold build does).
        """
        old = self.old.diffs
        return all(old.get(step.rel, step.key) == step.key for steps in steps_of.values() for step in steps if step)

    def _commit_places(self, commits: list[CommitInfo]) -> None:
        """The published commits' places on the first-parent line (0 the oldest), in files by their
        SHA's first two hex digits: a version page checks that its permalink's commit really held
        its version before it shows any verdict, reading the one file that commit is in.

        While the line only grew since the previous site (`self.carry`), its commits keep their
        places: only the files of the commits added since are written (one, for one more commit).
        """
        shards: dict[str, dict[str, int]] = {}
        for seq, commit in enumerate(commits):
            shards.setdefault(commit.sha[:2], {})[commit.sha] = seq
        grown_from = self.previous_commits if self.carry is not None else 0
        fresh = {commit.sha[:2] for commit in commits[grown_from:]}
        (self.out / COMMIT_PLACES).mkdir(exist_ok=True)
        for prefix, places in sorted(shards.items()):
            rel = f"{COMMIT_PLACES}/{prefix}.json"
            if prefix in fresh or not self._link_previous(rel):
                (self.out / rel).write_text(json.dumps({"commits": places}, sort_keys=True), encoding="ascii")
        self.commit_files = {f"{prefix}.json" for prefix in shards}

    def _top_pages(
        self,
        ctx: PageContext,
        heads: dict[str, PathVersion],
        metas: dict[int, VersionMeta],
        by_path: dict[str, list[PathVersion]],
    ) -> None:
        head = ctx.commits[-1]
        site_json = {
            "head": head.sha,
            "time": head.time,
            "subject": head.subject,
            "site_url": self.config.site_url,
            "history_digits": self.history_digits,
        }
        (self.out / "site.json").write_text(json.dumps(site_json, ensure_ascii=False), encoding="utf-8")
        self._commit_places(ctx.commits)
        kept = self._kept_sections()
        rows = FolderRows(functools.partial(self._folder_rows, ctx, heads, metas))
        touched = self._touched_folders(kept, heads, metas, by_path)
        every_row: dict[str, list[dict[str, Any]]] | None = None
        if touched is None:  # every folder's rows, at once
            every_row = self._every_folder_row(ctx, heads, metas)
            rows.seed(every_row)
            facts = folders_now({}, every_row, rows)
        else:
            facts = folders_now(kept.folders, touched, rows)
        unchanged = frozenset() if touched is None else frozenset(facts.keys() - touched)
        renderer = SectionRenderer(self.env, kept, rows, unchanged)
        renderer.fresh.folders = facts
        layout = home_layout({folder: figures.count for folder, figures in facts.items()})
        home_site = ctx.site_values("index.html")
        sections = [renderer.section(home_site, "index.html", f) for f in layout.inline]
        folder_rows = []
        if layout.listed:
            for folder, figures in facts.items():
                rel = folder_page_path(folder)
                folder_rows.append({"folder": folder, "href": rel, "count": figures.count})
                if renderer.kept_page(rel, folder) and self._link_previous(rel):
                    continue
                section = renderer.section(ctx.site_values(rel), rel, folder, keep=False)
                (self.out / rel).parent.mkdir(parents=True, exist_ok=True)
                self._page("folder.html", rel, ctx, folder=folder, count=figures.count, section=section)
        self.new.home = renderer.fresh.save(self.out / HOME_FILE)
        self.stats.folders_keyed, self.stats.rows_built = renderer.keyed, rows.built
        self.kept_sections, self.fresh_sections = renderer.kept, renderer.fresh
        folder_counts = {folder: figures.pages for folder, figures in facts.items() if figures.pages}
        class_counts: Counter[str] = Counter()
        for figures in facts.values():
            class_counts.update(figures.classes)
        # The whole rows only for a `template_dir`'s home page (the shipped one shows the sections alone).
        whole = {"folders": every_row} if every_row is not None and self.config.template_dir else {}
        self._page(
            "home.html",
            "index.html",
            ctx,
            head=head,
            folder_sections=sections,
            folder_rows=folder_rows,
            summary=self.summary,
            documents=sum(figures.count for figures in facts.values()),
            stats=self.stats,
            roots=self.config.roots,
            class_counts=sorted(class_counts.items()),
            **whole,
        )
        # The filter choices are written into the page, so a search loads no filter index.
        self._page(
            "search.html",
            "search.html",
            ctx,
            folder_counts=sorted(folder_counts.items()),
            class_counts=sorted(class_counts.items()),
        )
        texts = self._head_texts(ctx, heads, metas, by_path)
        # The search page's "did you mean": the words of the documents at the built commit.
        (self.out / "words.txt").write_bytes(words_file(ranked(texts.counts)))
        records, problem = citations_report(ctx, ctx.doc_paths)
        self._page("citations.html", "citations.html", ctx, head=head, rows=records, problem=problem)

    def _kept_sections(self) -> FolderSections:
        """The previous site's home file, when its manifest is trusted and names these very bytes; else none."""
        if self.stats.previous_site != PREVIOUS_REUSED:
            return FolderSections(self.fp)
        return FolderSections.load(self.previous / HOME_FILE, self.fp, self.old.home)

    def _touched_folders(
        self,
        kept: FolderSections,
        heads: dict[str, PathVersion],
        metas: dict[int, VersionMeta],
        by_path: dict[str, list[PathVersion]],
    ) -> set[str] | None:
        """The folders whose rows may differ from those `kept` holds the figures and sections of; None when
        every folder's rows are built (nothing carried, no figures kept, or a `template_dir`'s home page,
        which may show every row).

        Along a first-parent line that only grew (`self.carry`), an untouched path's row is its version,
        the commit that began its interval and its title, and the title is the recorded one while the
        titles many documents share are the same (`carry.version_inputs`) and no touched path holds or held
        its version (a version's fallback title names a path that held it at any commit): the touched
        paths' folders, and those of the paths holding a version a touched path holds or held, are the
        ones whose rows are built.
        """
        same_titles = self.new.version_inputs == self.old.version_inputs
        if self.carry is None or not same_titles or not kept.folders or self.config.template_dir:
            return None
        touched = self.carry.touched
        sharing = self._holding(_blobs_held(touched, by_path, metas), heads.keys())
        return {path.rpartition("/")[0] or "." for path in touched.union(sharing)}

    def _folder_rows(
        self, ctx: PageContext, heads: dict[str, PathVersion], metas: dict[int, VersionMeta], folder: str
    ) -> list[dict[str, Any]]:
        """One folder's rows at the built commit, from the index's paths of that folder alone."""
        paths = self.reader.paths_in_folder(folder, len(ctx.commits) - 1)
        return [_home_row(ctx, path, heads[path], metas) for path in paths if path in heads]

    def _every_folder_row(
        self, ctx: PageContext, heads: dict[str, PathVersion], metas: dict[int, VersionMeta]
    ) -> dict[str, list[dict[str, Any]]]:
        """Every folder's rows at the built commit, folders in their documents' path order."""
        folders: dict[str, list[dict[str, Any]]] = {}
        for path, pv in sorted(heads.items()):
            row = _home_row(ctx, path, pv, metas)
            folders.setdefault(row["folder"], []).append(row)
        return folders

    def _head_texts(
        self,
        ctx: PageContext,
        heads: dict[str, PathVersion],
        metas: dict[int, VersionMeta],
        by_path: dict[str, list[PathVersion]],
    ) -> HeadTexts:
        """The words of the versions at the built commit: the previous site's, updated by the versions that
        came or went (the touched paths' alone, when carried), and the texts read counted."""
        kept = None
        if self.stats.previous_site == PREVIOUS_REUSED:
            kept = HeadTexts.load(self.previous / TEXTS_FILE, self.old.texts)
        carried = self._carried_texts(kept, heads, metas, by_path) if kept is not None else None
        every_id = functools.partial(_version_ids, metas)
        if carried is None:
            version_ids: Mapping[str, int] = every_id()
            wanted = {version_key(metas[heads[path].version_id]) for path in ctx.doc_paths}
        else:  # every version's id only if counted afresh after all (too much came or went)
            wanted, version_ids = carried[0], _VersionIds(carried[1], every_id)

        def text_of(version_id: int) -> str:
            self.stats.texts_read += 1
            return self.reader.version_text(version_id)

        figures = head_texts(kept, wanted, version_ids, text_of)
        self.new.texts = figures.save(self.out / TEXTS_FILE)
        return figures

    def _carried_texts(
        self,
        kept: HeadTexts,
        heads: dict[str, PathVersion],
        metas: dict[int, VersionMeta],
        by_path: dict[str, list[PathVersion]],
    ) -> tuple[set[str], dict[str, int]] | None:
        """The versions at the built commit (`version_key`), and the ids of those that may have come or
        gone, from the touched paths alone; None when not carried (then every version is asked).

        Along a first-parent line that only grew (`self.carry`) an untouched path holds the version it
        held: only a version a touched path holds now can come, and only one it held can go, unless an
        untouched path at the built commit still holds it (asked of the index by blob).
        """
        if self.carry is None:
            return None
        touched = self.carry.touched

        def ok_keys(version_ids: Iterable[int]) -> dict[str, int]:
            return {version_key(metas[v]): v for v in version_ids if metas[v].status == "ok"}

        now = ok_keys(heads[path].version_id for path in touched if path in heads)
        held = ok_keys(pv.version_id for path in touched for pv in by_path.get(path, ()))
        leaving = (held.keys() & kept.versions) - now.keys()
        if leaving:
            blobs = {metas[held[key]].blob for key in leaving}
            holders = self._holding(blobs, heads.keys()) - touched
            leaving -= ok_keys(heads[path].version_id for path in holders).keys()
        return (kept.versions - leaving) | now.keys(), held | now

    def _holding(self, blobs: set[str], paths: KeysView[str]) -> set[str]:
        """The ones of `paths` that held any of `blobs` at some commit, asked of the index by blob: the
        paths whose rows and pages may show a version a touched path holds or held (a version's page and
        its fallback title each name a path that held it)."""
        return self.reader.paths_holding(blobs) & paths if blobs else set()

    def _page(self, template: str, rel: str, ctx: PageContext, **values: Any) -> None:
        html = self.env.get_template(template).render(site=ctx.site_values(rel), **values)
        (self.out / rel).write_text(html, encoding="utf-8")

    def _publish_index(self) -> None:
        """The index file goes into the site only when asked: it is larger than the site (docs/design.md#d12)."""
        if self.config.site_publish_index:
            _link_or_copy(self.index_path, self.out / "pincite.sqlite")

    def _search(self) -> None:
        """Pagefind's index of the document pages: a base kept from build to build, and a delta."""
        salt = f"{self.fp}|{pagefind_version()}"
        live = self.previous / SEARCH_FOLDER
        self.live_search = live if live.is_dir() else None
        base = self._previous_base(live, salt)
        searched = {path: searched_key(key) for path, key in self.new.docs.items()}
        kept = plan_search(searched, salt, base, self.config.site_search_delta_share, self._folder_language)
        plan = kept or self._fresh_plan(salt)
        self._index(plan.bundles)
        dropped: list[str] = []
        if kept is not None:
            delta = self._indexed(plan.delta)
            if (plan.delta is not None and delta is None) or ids_clash(plan, base, delta):
                # Rare: a page still searched got a dropped page's id (dropping one would drop
                # both), or the delta's ids cannot be read. A new base drops nothing.
                plan = self._fresh_plan(salt)
                self._index(plan.bundles)
            else:
                dropped = dropped_ids(plan, base, delta)
        self.new.search_base = [part.folder for part in plan.base]
        self.needed_bundles = {b.folder for b in plan.bundles}
        made_here = self.made_bundles = {
            b.folder for b in plan.bundles if (self.out / SEARCH_FOLDER / b.folder).is_dir()
        }
        self.stats.search_bundles_reused = len(plan.bundles) - len(made_here)
        self.stats.search_pages_superseded = len(plan.superseded)
        # A bundle kept from the previous build is still in the live folder, which the new site adopts.
        folders = [(self.out / SEARCH_FOLDER if b.folder in made_here else live) / b.folder for b in plan.bundles]
        thin_runtimes(folders, [b.folder in made_here for b in plan.bundles])
        write_bundle_list(self.out, plan, dropped, folders)

    def _folder_language(self, path: str) -> str:
        """The language a document's folder names (the site's when none): what the delta's sample is drawn by."""
        folder = path.rpartition("/")[0]
        if folder not in self.folder_languages:  # asked for every page: once per folder
            self.folder_languages[folder] = folder_language(path) or self.config.site_language
        return self.folder_languages[folder]

    def _previous_base(self, live: Path, salt: str) -> list[IndexedBundle]:
        """The previous site's base parts, or none when any of them cannot be read as made with `salt`."""
        parts = [read_indexed(live / folder, "base", salt) for folder in self.old.search_base]
        return [part for part in parts if part is not None] if None not in parts else []

    def _fresh_plan(self, salt: str) -> SearchPlan:
        """A new base over every document page, in parts Pagefind can hold in `site_search_part_mb` of pages."""
        part_bytes = int(self.config.site_search_part_mb * 1_000_000)
        searched = {path: searched_key(key) for path, key in self.new.docs.items()}
        return fresh_plan(searched, salt, self._page_bytes, part_bytes)

    def _page_bytes(self, path: str) -> int:
        """The base's parts are cut by the pages' bytes, not their lean records' (`search_record`):
        cut by the records' bytes at 20 MB, a part held twice the pages, and Pagefind's peak went
        from 470 to 680 MB at 10,000 documents (BENCHMARKS.md, `build-memory`). Memory first."""
        page = self.out / doc_page_path(path)
        return (page if self.out_has(page) else self.previous / doc_page_path(path)).stat().st_size

    def out_has(self, page: Path) -> bool:
        """Whether this build wrote `page` (updated in place, the pages it kept are in the live site only)."""
        return not self.in_place or page.exists()

    def _index(self, bundles: list[Bundle]) -> None:
        """Run Pagefind for the bundles the live site does not hold already."""
        # A bundle folder is only ever moved into the live site whole, after its run succeeded.
        live = self.live_search
        todo = [b for b in bundles if live is None or not (live / b.folder).is_dir()]
        stage = self.out.with_name(f"{self.out.name}.search")
        linked = []  # Pagefind reads its pages in one folder: updated in place, the kept ones it needs are linked in
        for bundle in todo if self.in_place else ():
            for path, _key in (*bundle.pages, *bundle.sample):
                page = self.out / doc_page_path(path)
                if not page.exists():
                    _link_or_copy(self.previous / doc_page_path(path), page)
                    linked.append(page)
        self.search_pages = (self.search_pages or 0) + sum(len(b.pages) for b in todo)
        try:
            undescribed = self.stats.undescribed_pages
            indexed = index_bundles(self.out, todo, self.out / SEARCH_FOLDER, stage, self._indexed_pages, undescribed)
        finally:
            for page in linked:  # not this build's pages: they stay in the live site as they are
                page.unlink()
        self.stats.pagefind_seconds += indexed
        self.stats.search_bundles_indexed += len(todo)
        self.stats.search_pages_indexed += sum(len(b.pages) for b in todo)

    def _indexed_pages(self, bundle: Bundle) -> None:
        self.search_pages_done += len(bundle.pages)  # one writer (Pagefind's thread); the build's thread reads it

    def _indexed(self, bundle: Bundle | None) -> IndexedBundle | None:
        """A bundle of this build's plan with its pages' ids, from this build's output or the live site."""
        if bundle is None:
            return None
        for folder in (self.out / SEARCH_FOLDER, self.previous / SEARCH_FOLDER):
            found = read_indexed(folder / bundle.folder, bundle.kind, bundle.salt)
            if found is not None:
                return found
        return None
