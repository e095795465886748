"""The home page's list of documents: one section per folder, kept from build to build.

A small site's home page names every document at the built commit, folder by folder. A large
one's would not fit a page (15 MB at 38,000 documents): past `HOME_DOCUMENTS` documents the home
page lists the folders with their counts, and the documents of the small folders, and each folder
gets a page of its own (`folder_page_path`), so the home page stays within about 200 KB whatever
the number of documents (up to about a thousand folders).

Rendering the rows through the sandboxed templates took seconds on every build at 10,000
documents. A folder's section (`home_folder.html`) depends on its rows, the templates and the page
it is on alone, so each is kept in the site (`HOME_FILE`) under a key of everything its rows hold,
and rendered again only when that changed. A folder's own page is its section alone: only its key is
kept (the page itself is the previous site's, linked: `SectionRenderer.kept_page`), so the site does
not hold every row twice (16 MB at 38,000 documents).

The home and search pages need of the untouched folders their figures alone (`FolderFacts`: how
many documents, of which classes, in which order), so those are kept in the same file: a one-file
build builds the rows of the touched folders only (`FolderRows`), not a row per document. The file
is trusted only when it is the one the previous site's manifest names (its digest, `Manifest.home`):
a home file edited, cut short or left from another build is not read, and every section and
figure is made again from the rows.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment
from markupsafe import Markup

from indexer.site.manifest import read_named_json, write_named_json
from indexer.site.render import root_prefix, site_page

HOME_FILE = ".pincite-home.json"
FOLDER_TEMPLATE = "home_folder.html"
HOME_DOCUMENTS = 250  # a site of more documents lists its folders on the home page (a row is ~400 bytes)
SMALL_FOLDER = 20  # that listing shows a folder's documents too when it has at most this many


def folder_page_path(folder: str) -> str:
    """Where a folder's own page lives (a large site's): `folders/<folder>/index.html`.

    Under the folder's name rather than beside it, so that no folder's page is another's (`a` and
    `a/index`); the documents at the top of the roots (folder `.`) are `folders/index.html`.
    """
    return site_page("folders", "index" if folder == "." else f"{folder}/index")


@dataclass(frozen=True)
class HomeLayout:
    """What the home page shows of the folders: every section inline, or the folders and the small ones."""

    listed: bool  # the folders are listed, each with a page of its own
    inline: tuple[str, ...]  # the folders whose documents the home page shows


def home_layout(counts: dict[str, int]) -> HomeLayout:
    """The home page of a site with these documents per folder (in the order shown)."""
    if sum(counts.values()) <= HOME_DOCUMENTS:
        return HomeLayout(False, tuple(counts))
    inline, shown = [], 0
    for folder, count in counts.items():
        if count <= SMALL_FOLDER and shown + count <= HOME_DOCUMENTS:
            inline.append(folder)
            shown += count
    return HomeLayout(True, tuple(inline))


@dataclass(frozen=True)
class FolderFacts:
    """What the home and search pages show of a folder besides its section: kept from build to build."""

    first: str  # its first document's path: the folders are shown in their documents' path order
    count: int  # its documents, the skipped ones too
    classes: dict[str, int]  # its documents that have a page, by source class

    def to_json(self) -> list[Any]:
        return [self.first, self.count, self.classes]

    @classmethod
    def from_json(cls, value: object) -> FolderFacts:
        """The figures as the home file holds them; TypeError or ValueError when not of this shape."""
        if not isinstance(value, list) or len(value) != 3:
            raise TypeError("not a folder's figures")
        first, count, classes = value
        if not (isinstance(first, str) and isinstance(count, int) and isinstance(classes, dict)):
            raise TypeError("not a folder's figures")
        if not all(isinstance(k, str) and isinstance(n, int) and n > 0 for k, n in classes.items()):
            raise TypeError("not a folder's figures")
        if count < 1 or sum(classes.values()) > count:
            raise ValueError("not a folder's figures")
        return cls(first, count, dict(classes))

    @property
    def pages(self) -> int:
        """Its documents that have a page."""
        return sum(self.classes.values())


def folder_facts(docs: list[dict[str, Any]]) -> FolderFacts:
    """A folder's figures from its rows (in path order, at least one)."""
    classes = Counter(str(doc["meta"].source_class) for doc in docs if doc["href"])
    return FolderFacts(str(docs[0]["path"]), len(docs), dict(sorted(classes.items())))


@dataclass
class FolderSections:
    """Rendered folder sections by folder, with the key of the rows each was rendered from, and each
    folder's figures (`FolderFacts`)."""

    fingerprint: str
    # "<page>\0<folder>" -> (key, html): a folder's section on the home page, or on its own page
    # (there the html is "": the page is kept whole).
    sections: dict[str, tuple[str, str]] = field(default_factory=dict)
    # Every folder at the commit the file was written for -> its figures (empty: none kept).
    folders: dict[str, FolderFacts] = field(default_factory=dict)

    @classmethod
    def load(cls, file: Path, fingerprint: str, digest: str) -> FolderSections:
        """The sections an earlier build kept under the same templates, or none: none unless the file's
        bytes have the `digest` the previous site's manifest recorded (not edited, cut short or swapped)."""
        try:
            data = read_named_json(file, digest)  # "" (none recorded) is no file's digest
            if data["fingerprint"] == fingerprint:
                sections = {str(f): (str(k), str(h)) for f, (k, h) in data["sections"].items()}
                folders = {str(f): FolderFacts.from_json(v) for f, v in data.get("folders", {}).items()}
                return cls(fingerprint, sections, folders)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pass
        return cls(fingerprint)

    def save(self, file: Path) -> str:
        """Write the file; its digest, for the manifest to name."""
        data = {
            "fingerprint": self.fingerprint,
            "sections": {f: list(kh) for f, kh in self.sections.items()},
            "folders": {f: facts.to_json() for f, facts in self.folders.items()},
        }
        return write_named_json(file, data)


def rows_key(docs: list[dict[str, Any]]) -> str:
    """Everything a folder's rows hold: each document's path, link, version and change.

    A version's record (size, class, ...) is fixed by its blob and extractor identity, or for one
    without text by the reason; a commit's by its SHA; its title is the corpus's (corpus_titles).
    """
    digest = hashlib.sha256()
    for doc in docs:
        meta = doc["meta"]
        row = [doc["path"], doc["href"] or "", meta.blob, meta.identity, meta.title, meta.status, meta.reason]
        row.append(doc["change"].sha)
        digest.update("\0".join(row).encode("utf-8", "surrogatepass") + b"\1")
    return digest.hexdigest()


class FolderRows:
    """The rows of the home template's folders, built the first time a folder's are asked for."""

    def __init__(self, build: Callable[[str], list[dict[str, Any]]]) -> None:
        """`build`: a folder's rows, in path order (none when it holds no document)."""
        self._build = build
        self._rows: dict[str, list[dict[str, Any]]] = {}
        self.built = 0  # the document rows built: the touched folders' alone on a one-file build

    def __call__(self, folder: str) -> list[dict[str, Any]]:
        if folder not in self._rows:
            self._rows[folder] = self._build(folder)
            self.built += len(self._rows[folder])
        return self._rows[folder]

    def seed(self, folders: dict[str, list[dict[str, Any]]]) -> None:
        """Take every folder's rows at once (a build that walks every document)."""
        self._rows.update(folders)
        self.built += sum(map(len, folders.values()))


def folders_now(kept: dict[str, FolderFacts], touched: Iterable[str], rows: FolderRows) -> dict[str, FolderFacts]:
    """Every folder's figures, in the order the home page shows them: the kept ones of the folders not
    `touched`, and those of the touched folders (gone when they hold no document now) from their rows."""
    facts = {folder: figures for folder, figures in kept.items() if folder not in touched}
    for folder in touched:
        docs = rows(folder)
        if docs:
            facts[folder] = folder_facts(docs)
    return dict(sorted(facts.items(), key=lambda item: item[1].first))


class SectionRenderer:
    """Folder sections rendered once, or taken from an earlier build; what to keep for the next."""

    def __init__(
        self, env: Environment, kept: FolderSections, rows: FolderRows, unchanged: frozenset[str] = frozenset()
    ) -> None:
        """`unchanged`: the folders whose rows are known to be those `kept` was rendered from (no new
        commit touched their paths, and no title they show changed): their kept keys are taken as they
        are, and their rows are not built unless a section of theirs must be rendered."""
        self.template = env.get_template(FOLDER_TEMPLATE)
        self.kept = kept
        self.rows = rows
        self.fresh = FolderSections(kept.fingerprint)
        self.unchanged = unchanged
        self.keyed = 0  # the folders whose rows' key was computed

    def _key(self, name: str, folder: str) -> str:
        kept_key = self.kept.sections.get(name, ("", ""))[0]
        if kept_key and folder in self.unchanged:
            return kept_key
        self.keyed += 1
        return rows_key(self.rows(folder))

    def section(self, site: dict[str, Any], page: str, folder: str, keep: bool = True) -> Markup:
        """`folder`'s section on the page at `page` (its links are relative to that page's folder).

        `keep=False` for a folder's own page: only the section's key is kept for the next build.
        """
        name = f"{page}\0{folder}"
        key = self._key(name, folder)
        kept_key, html = self.kept.sections.get(name, ("", ""))
        if kept_key != key or not html:
            docs = self.rows(folder)
            html = self.template.render(site=site, folder=folder, docs=docs, root=root_prefix(page))
        self.fresh.sections[name] = (key, html if keep else "")
        # Rendered here with autoescape, or by an earlier build from the same templates.
        return Markup(html)

    def kept_page(self, page: str, folder: str) -> bool:
        """Whether the previous site's page at `page`, which is `folder`'s section alone, holds its rows.

        The caller links that page into the new site, or renders it (`section(..., keep=False)`)
        when it cannot.
        """
        name = f"{page}\0{folder}"
        key = self._key(name, folder)
        if self.kept.sections.get(name, ("", ""))[0] != key:
            return False
        self.fresh.sections[name] = (key, "")
        return True
