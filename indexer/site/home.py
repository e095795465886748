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
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment
from markupsafe import Markup

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


@dataclass
class FolderSections:
    """Rendered folder sections by folder, with the key of the rows each was rendered from."""

    fingerprint: str
    # "<page>\0<folder>" -> (key, html): a folder's section on the home page, or on its own page
    # (there the html is "": the page is kept whole).
    sections: dict[str, tuple[str, str]] = field(default_factory=dict)

    @classmethod
    def load(cls, file: Path, fingerprint: str) -> FolderSections:
        """The sections an earlier build kept under the same templates, or none."""
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
            if data["fingerprint"] == fingerprint:
                return cls(fingerprint, {str(f): (str(k), str(h)) for f, (k, h) in data["sections"].items()})
        except (OSError, ValueError, KeyError, TypeError):
            pass
        return cls(fingerprint)

    def save(self, file: Path) -> None:
        data = {"fingerprint": self.fingerprint, "sections": {f: list(kh) for f, kh in self.sections.items()}}
        file.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


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


class SectionRenderer:
    """Folder sections rendered once, or taken from an earlier build; what to keep for the next."""

    def __init__(self, env: Environment, kept: FolderSections, unchanged: frozenset[str] = frozenset()) -> None:
        """`unchanged`: the folders whose rows are known to be those `kept` was rendered from (no new
        commit touched their paths, and no title they show changed): their kept keys are taken as they are."""
        self.template = env.get_template(FOLDER_TEMPLATE)
        self.kept = kept
        self.fresh = FolderSections(kept.fingerprint)
        self.unchanged = unchanged
        self.keyed = 0  # the folders whose rows' key was computed

    def _key(self, name: str, folder: str, docs: list[dict[str, Any]]) -> str:
        kept_key = self.kept.sections.get(name, ("", ""))[0]
        if kept_key and folder in self.unchanged:
            return kept_key
        self.keyed += 1
        return rows_key(docs)

    def section(
        self, site: dict[str, Any], page: str, folder: str, docs: list[dict[str, Any]], keep: bool = True
    ) -> Markup:
        """`folder`'s section on the page at `page` (its links are relative to that page's folder).

        `keep=False` for a folder's own page: only the section's key is kept for the next build.
        """
        name = f"{page}\0{folder}"
        key = self._key(name, folder, docs)
        kept_key, html = self.kept.sections.get(name, ("", ""))
        if kept_key != key or not html:
            html = self.template.render(site=site, folder=folder, docs=docs, root=root_prefix(page))
        self.fresh.sections[name] = (key, html if keep else "")
        # Rendered here with autoescape, or by an earlier build from the same templates.
        return Markup(html)

    def kept_page(self, page: str, folder: str, docs: list[dict[str, Any]]) -> bool:
        """Whether the previous site's page at `page`, which is `folder`'s section alone, holds these rows.

        The caller links that page into the new site, or renders it (`section(..., keep=False)`)
        when it cannot.
        """
        name = f"{page}\0{folder}"
        key = self._key(name, folder, docs)
        if self.kept.sections.get(name, ("", ""))[0] != key:
            return False
        self.fresh.sections[name] = (key, "")
        return True
