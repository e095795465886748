"""What a site build may carry over from the previous site's manifest without computing it again.

A one-file build should cost what the file changed, not what the corpus holds. The keys of the
document pages and history files of the paths no new commit touched are the previous build's,
as recorded, when everything else those keys are made of is unchanged too. This module says
which paths were touched and whether the rest held:

- the paths one `git diff` between the previous site's commit and the built one names (both
  names of a move), plus those the index names (`BuildSummary.changed_paths`, when it gives one),
  plus every path whose intervals of the index began or ended since the previous site's head
  (a path changed and changed back, or moved away and back, holds the same blob at both heads),
  plus every path of the index that holds a version added since the previous site was built
  (an extractor change gives an unchanged blob a new version without git touching its path);
- the index's first-parent line still starts with the previous site's (the same
  `history_start`, no rewritten branch), and its extractor identities are the same set;
- the inputs every document page shares (`doc_inputs`): the documents' titles as the site shows
  them (a title turned generic by another document's change), which documents there are (folder
  neighbours, link targets), the other files a link can reach, the docs frameworks' files, the
  URLs a Docusaurus site serves its documents at (a front matter's `id:` names one), who
  cites whom (whether a page links its history page is its own path's versions), where Sphinx's
  labels and glossary terms land (a `:ref:` names another document's section). A change to
  any of them means every document page's key is computed again.

Fail closed: when any of it cannot be established (no record, a commit git no longer has, a
snapshot's metadata touched), `Carry` is None and the build computes every key as before.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from indexer.errors import RepositoryError
from indexer.index.store import IndexReader
from indexer.text.kinds import is_snapshot_meta
from indexer.vcs.repo import CommitInfo, GitRepo


@dataclass(frozen=True)
class IndexState:
    """What the site records of the index it was built from, to tell the next build what changed."""

    head: str  # the built commit
    commits: int  # the length of the first-parent line
    versions_max: int  # the highest version id: a version above it was added since
    identities: str  # a digest of the extractor identities (and statuses) the versions have

    def to_json(self) -> dict[str, Any]:
        return {
            "head": self.head,
            "commits": self.commits,
            "versions_max": self.versions_max,
            "identities": self.identities,
        }

    @classmethod
    def from_json(cls, value: object) -> IndexState | None:
        """The record as a manifest holds it; None when absent or not of this shape (then nothing is carried)."""
        if not isinstance(value, dict):
            return None
        head, commits, top, identities = (value.get(k) for k in ("head", "commits", "versions_max", "identities"))
        if not (isinstance(head, str) and isinstance(commits, int) and commits >= 1 and isinstance(top, int)):
            return None
        return cls(head, commits, top, identities) if isinstance(identities, str) else None


def index_state(reader: IndexReader, commits: list[CommitInfo]) -> IndexState:
    """The index's state as the next build compares it: two small queries, no walk in Python."""
    top = reader.conn.execute("SELECT coalesce(max(id), 0) FROM versions").fetchone()[0]
    rows = reader.conn.execute(
        "SELECT DISTINCT identity, status, source_class FROM versions ORDER BY identity, status, source_class"
    ).fetchall()
    return IndexState(commits[-1].sha, len(commits), int(top), _digest(json.dumps(rows)))


@dataclass(frozen=True)
class Carry:
    """The paths whose records may have changed since the previous site; every other path's may be carried."""

    touched: frozenset[str]


def carry_over(
    repo: GitRepo,
    reader: IndexReader,
    previous: IndexState | None,
    now: IndexState,
    commits: list[CommitInfo],
    index_changed: Iterable[str] | None = None,
) -> tuple[Carry | None, str]:
    """What may be carried from the previous site (None: nothing), and why not when nothing may."""
    if previous is None:
        return None, "no record of the previous site's index"
    if previous.commits > len(commits) or commits[previous.commits - 1].sha != previous.head:
        return None, "the first-parent line no longer starts with the previous site's"
    if previous.identities != now.identities:
        return None, "the index's extractor identities changed"
    try:
        diff = repo.touched_paths(previous.head, now.head) if previous.head != now.head else []
    except RepositoryError:
        return None, "the previous site's commit cannot be diffed"
    touched = {path for _status, old, new in diff for path in (old, new)}
    if any(is_snapshot_meta(path) for path in touched):
        return None, "a snapshot's metadata changed"  # its page's key holds the metadata's blob
    # Hook: the index's own list of the paths its update changed (another build stage may give it).
    touched.update(index_changed or ())
    # A path whose intervals changed since the previous site's head, though the two heads' trees hold the same
    # blob for it (changed and changed back, moved away and back): its history and "since" commit are new.
    # By sequence numbers along the first-parent line, not version ids (a cold rebuild gives new ids).
    before = previous.commits - 1
    rows = reader.conn.execute(
        "SELECT DISTINCT path FROM path_versions WHERE first_seq > ? OR (last_seq >= ? AND last_seq < ?)",
        (before, before, len(commits) - 1),
    )
    touched.update(str(row[0]) for row in rows)
    # A path of the index that holds a version added since: new text for it, even where git saw no change.
    rows = reader.conn.execute("SELECT DISTINCT path FROM path_versions WHERE version_id > ?", (previous.versions_max,))
    touched.update(str(row[0]) for row in rows)
    return Carry(frozenset(touched)), "carried"


def doc_inputs(
    titles: Mapping[str, str],
    files: Mapping[str, str],
    frameworks: Mapping[str, str],
    docs_roots: Iterable[str],
    cited: Mapping[str, str],
    places: str,
    routes: Mapping[str, str] = {},
) -> str:
    """A digest of what every document page's key shares with other paths (see the module's docstring).

    `titles`: the documents that get a page, with the titles the site shows; `files`: every file
    under the roots (path → blob) — a document's own blob is left out, as its page's key holds it
    and a link to a document names the document, not its blob; `cited`: the citing places' key of
    each cited document; `places`: a digest of where the Sphinx labels and glossary terms of the
    corpus land (`places.CorpusPlaces.digest`), which a page's `:ref:` shows; `routes`: the URL each
    document of a Docusaurus docs folder is served at (its front matter's `id:` or `slug:`, which a
    link of another page names).
    """
    other_files = sorted((path, blob) for path, blob in files.items() if path not in titles)
    shared = [
        sorted(titles.items()),
        other_files,
        sorted(frameworks.items()),
        sorted(docs_roots),
        sorted(cited.items()),
        places,
    ]
    if routes:  # only a Docusaurus site has them: every other site's digest is as before
        shared.append(sorted(routes.items()))
    return _digest(json.dumps(shared, ensure_ascii=False))


def version_inputs(shared_titles: Iterable[str]) -> str:
    """A digest of what every version page's key shares with other paths: the titles many documents
    share (`corpus_titles.shared_at_head`), which turn a version's title generic wherever it is held."""
    return _digest(json.dumps(sorted(shared_titles), ensure_ascii=False))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()
