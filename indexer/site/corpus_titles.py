"""Titles across the corpus: a title many documents share gives way to each one's own name.

A version's recorded title is its own (`text.titles.document_title`): one document cannot tell
that "Summary" opens 604 others. The site can: among the documents at the built commit, a title
that more than 1% of them hold (`text.titles.shared_titles`) is replaced, on every version that
holds it, by the version's metadata line or its file name (`fallback_title`), read from its text.
Every page of the build (home, document, history and version pages, search records) then
shows the same titles: a version page's key holds its title, so a version whose title changes so
is rendered again, and no other (docs/site.md, *Titles*). Cheap: one count over the titles, and
the texts of the versions replaced.
"""

from __future__ import annotations

from dataclasses import replace

from indexer.index.store import IndexReader, PathVersion, VersionMeta
from indexer.text.titles import fallback_title, shared_titles, title_key


def shared_at_head(
    metas: dict[int, VersionMeta], by_path: dict[str, list[PathVersion]], head_seq: int
) -> frozenset[str]:
    """The titles (`title_key`) more than 1% of the documents at the built commit share."""
    at_head = [pvs[-1].version_id for pvs in by_path.values() if pvs[-1].last_seq == head_seq]
    return shared_titles(metas[v].title for v in at_head if metas[v].status == "ok")


def corpus_titles(
    metas: dict[int, VersionMeta],
    by_path: dict[str, list[PathVersion]],
    head_seq: int,
    reader: IndexReader,
    shared: frozenset[str] | None = None,
) -> dict[int, VersionMeta]:
    """`metas` with the titles many documents at the built commit share (`shared_at_head`) replaced
    (the rest as they are)."""
    if shared is None:
        shared = shared_at_head(metas, by_path, head_seq)
    if not shared:
        return metas
    out = dict(metas)
    paths = {pv.version_id: path for path, pvs in sorted(by_path.items()) for pv in reversed(pvs)}
    for version_id, meta in metas.items():
        if meta.status != "ok" or not meta.title or title_key(meta.title) not in shared or version_id not in paths:
            continue
        named = fallback_title(reader.version_text(version_id), paths[version_id])
        if named:
            out[version_id] = replace(meta, title=named)
    return out
