"""A document's history page and the diff pages between its consecutive versions.

`changes/{path}.html` lists every version the path had in the published history, newest first:
the commits it spans, the date and message of the commit that introduced it, a link to its
version page and one to git's diff from the version before. Everything comes from the index's
path-version intervals (no git process per path); the diffs are git's zero-context hunks of the
consecutive texts, computed in one batch (`BannerDataBuilder.prefetch`).

A path that held one version from its first commit on gets no history page (`has_history_page`),
and no page links to one for it.

`diff/{old blob}-{new blob}.html` is immutable: two versions' texts never change, so a diff page
is written once and kept by every later build, like a version page.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import pairwise
from pathlib import Path
from typing import Any

from markupsafe import Markup, escape

from indexer.index.store import PathVersion, VersionMeta
from indexer.site.banner_data import BannerDataBuilder
from indexer.site.pages import PageContext
from indexer.site.render import doc_page_path, root_prefix, site_page, url_path
from indexer.text.word_diff import hunk_marks
from indexer.vcs.repo import CommitInfo, Hunk

MAX_DIFF_LINES = 5000
LINE_KINDS = {"+": "add", "-": "del"}  # any other line of a hunk is a note ("\\ No newline ...")
WORD_TAGS = {"add": "ins", "del": "del"}  # the element that marks a changed word, by the line's kind


def changes_page_path(path: str) -> str:
    return site_page("changes", path)


def has_history_page(pvs: list[PathVersion]) -> bool:
    """Whether a path gets a history page: when it held more than one interval in the published history.

    A path that held one version from its first commit on has nothing a history page could add to
    its document or version page (on a corpus of small pages that is most paths: 86 MB of pages
    on one measured). Any second interval (another version, or the same one after a gap) gets a page.
    """
    return len(pvs) > 1


def diff_page_path(old_blob: str, new_blob: str) -> str:
    return f"diff/{old_blob}-{new_blob}.html"


@dataclass(frozen=True)
class Step:
    """Two consecutive versions of a path: the diff page between them, and the texts it is made from."""

    old: VersionMeta
    new: VersionMeta
    old_commit: str  # a commit at which the path held each version (where its interval starts)
    new_commit: str
    old_text: str
    new_text: str

    @cached_property  # asked several times for every step of every path
    def rel(self) -> str:
        return diff_page_path(self.old.blob, self.new.blob)

    @cached_property
    def key(self) -> str:
        return f"{self.old_text}:{self.new_text}:{self.old_commit}:{self.new_commit}"


def consecutive_steps(
    builder: BannerDataBuilder, pvs: list[PathVersion], metas: dict[int, VersionMeta], commits: list[CommitInfo]
) -> list[Step | None]:
    """For each interval after the first: the step from the interval before, or None (no diff to show)."""
    steps: list[Step | None] = []
    for before, after in pairwise(pvs):
        old, new = builder.text_blob(before.version_id), builder.text_blob(after.version_id)
        same_identity = metas[before.version_id].identity == metas[after.version_id].identity
        if old is None or new is None or old == new or not same_identity:
            steps.append(None)
        else:
            pair = metas[before.version_id], metas[after.version_id]
            steps.append(Step(*pair, commits[before.first_seq].sha, commits[after.first_seq].sha, old, new))
    return steps


def changes_key(path: str, pvs: list[PathVersion], metas: dict[int, VersionMeta], commits: list[CommitInfo]) -> str:
    """What a history page shows: its intervals, their versions and the commits that began and
    ended them (by SHA: a page kept from another history is not this one's; the running interval
    without its end)."""
    head_seq = len(commits) - 1

    def ends(pv: PathVersion) -> str:
        return "" if pv.last_seq == head_seq else f"{commits[pv.last_seq].sha}>{commits[pv.last_seq + 1].sha}"

    parts = [f"{metas[pv.version_id].blob}:{commits[pv.first_seq].sha}-{ends(pv)}" for pv in pvs]
    parts += [metas[pv.version_id].title for pv in pvs]  # the corpus's titles (site/corpus_titles.py)
    return path + "|" + ",".join(parts)


def render_changes_page(
    ctx: PageContext,
    path: str,
    pvs: list[PathVersion],
    metas: dict[int, VersionMeta],
    steps: list[Step | None],
    at_head: bool,
    target: Path,
) -> None:
    rel = changes_page_path(path)
    head_seq = len(ctx.commits) - 1
    rows: list[dict[str, Any]] = []
    for n, pv in enumerate(pvs):
        meta = metas[pv.version_id]
        first, last = ctx.commits[pv.first_seq], ctx.commits[pv.last_seq]
        step = steps[n - 1] if n > 0 else None
        rows.append(
            {
                "meta": meta,
                "first": first,
                "last": None if pv.last_seq == head_seq else last,
                "href": f"v/{meta.blob}.html?commit={first.sha}&path={url_path(path)}#L1"
                if meta.status == "ok"
                else None,
                "diff": step.rel if step else None,
                "gap": n > 0 and pvs[n - 1].last_seq + 1 != pv.first_seq,
                "n": n + 1,
            }
        )
    html = ctx.env.get_template("changes.html").render(
        site=ctx.site_values(rel),
        path=path,
        rows=list(reversed(rows)),
        doc_href=doc_page_path(path) if at_head else None,
        title=next((r["meta"].title for r in reversed(rows) if r["meta"].title), ""),
    )
    ctx.pages.write(target, html)


def render_diff_page(ctx: PageContext, path: str, step: Step, hunks: list[Hunk], target: Path) -> None:
    rel = step.rel
    lines: list[tuple[str, str]] = []
    marked: list[str] = []  # each line as HTML, its changed words inside <del> or <ins>
    for hunk in hunks:
        lines.append(("head", hunk.header))
        marked.append(str(escape(hunk.header)))
        ranges: dict[int, list[tuple[int, int]]] = {}
        for n, start, end in hunk_marks(hunk.lines):
            ranges.setdefault(n, []).append((start, end))
        for n, line in enumerate(hunk.lines):
            kind = LINE_KINDS.get(line[:1], "note")
            lines.append((kind, line))
            marked.append(marked_line(line, ranges.get(n, []), WORD_TAGS.get(kind, "mark")))
    shown = lines[:MAX_DIFF_LINES]
    # Written here rather than by a loop in the template: a diff page is mostly these lines, and
    # the site writes one per pair of consecutive versions. `lines` stays for templates of one's own.
    diff_lines = Markup(
        "".join(f'<span class="{kind}">{html}\n</span>' for (kind, _line), html in zip(shown, marked, strict=False))
    )
    html = ctx.env.get_template("diff.html").render(
        site=ctx.site_values(rel),
        path=path,
        old=step.old,
        new=step.new,
        step=step,
        lines=shown,
        diff_lines=diff_lines,
        more=len(lines) - len(shown),
        root=root_prefix(rel),
        added=sum(h.new_count for h in hunks),
        removed=sum(h.old_count for h in hunks),
    )
    ctx.pages.write(target, html)


def marked_line(line: str, ranges: list[tuple[int, int]], tag: str) -> str:
    """A hunk line as escaped HTML, each changed range (code points, sorted) inside `<tag>`."""
    parts, at = [], 0
    for start, end in ranges:
        parts.append(f"{escape(line[at:start])}<{tag}>{escape(line[start:end])}</{tag}>")
        at = end
    parts.append(str(escape(line[at:])))
    return "".join(parts)
