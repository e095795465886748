"""The home page's list of documents: one section per folder, kept from build to build.

The list names every document at the built commit: at 10,000 documents it is megabytes of HTML,
and rendering it through the sandboxed templates took seconds on every build. A folder's section
(`home_folder.html`) depends on its rows and the templates alone, so each is kept in the site
(`HOME_FILE`) under a key of everything its rows hold, and rendered again only when that changed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment
from markupsafe import Markup

HOME_FILE = ".pincite-home.json"
FOLDER_TEMPLATE = "home_folder.html"


@dataclass
class FolderSections:
    """Rendered folder sections by folder, with the key of the rows each was rendered from."""

    fingerprint: str
    sections: dict[str, tuple[str, str]] = field(default_factory=dict)  # folder -> (key, html)

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

    A version's record (title, size, class, ...) is fixed by its blob and extractor identity, or
    for one without text by the reason; a commit's by its SHA.
    """
    digest = hashlib.sha256()
    for doc in docs:
        meta = doc["meta"]
        row = (doc["path"], doc["href"] or "", meta.blob, meta.identity, meta.status, meta.reason, doc["change"].sha)
        digest.update("\0".join(row).encode("utf-8", "surrogatepass") + b"\1")
    return digest.hexdigest()


def folder_sections(
    env: Environment, site: dict[str, Any], folders: dict[str, list[dict[str, Any]]], kept: FolderSections
) -> tuple[list[Markup], FolderSections]:
    """Each folder's section in order, and the sections to keep for the next build."""
    template = env.get_template(FOLDER_TEMPLATE)
    fresh, sections = FolderSections(kept.fingerprint), []
    for folder, docs in folders.items():
        key = rows_key(docs)
        kept_key, html = kept.sections.get(folder, ("", ""))
        if kept_key != key:
            html = template.render(site=site, folder=folder, docs=docs)
        fresh.sections[folder] = (key, html)
        # Rendered here with autoescape, or by an earlier build from the same templates.
        sections.append(Markup(html))
    return sections, fresh
