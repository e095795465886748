"""The site's pages that hold corpus text: document pages, version pages; and the citations report."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path, PurePosixPath
from typing import Any

from jinja2 import Environment
from markupsafe import Markup

from indexer.config import Config
from indexer.errors import PinciteError
from indexer.index.store import IndexReader, PassageAnchor, PathVersion, VersionMeta
from indexer.shapes import CheckRecordJson
from indexer.site.budget import within_budget
from indexer.site.cited_by import CitedBy, citing_href, citing_link, gutter_marks
from indexer.site.links import DocumentLinks
from indexer.site.markdown import markdown_view
from indexer.site.render import PageWriter, doc_page_path, human_size, page_href, root_prefix, source_view, url_path
from indexer.text import asciidoc
from indexer.text.kinds import text_format
from indexer.text.language import document_language
from indexer.vcs.repo import CommitInfo, GitRepo

# Styles, fonts and fetches fall back to default-src ('self'): naming them again cost 52 bytes a page.
CSP = (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; img-src 'self' data:; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-src 'none'; worker-src 'self' blob:"
)
# The pages written once per document and version (compact.html) run no search: no WebAssembly
# and no worker, so script-src and worker-src fall back to default-src 'self' (stricter than CSP,
# 120 bytes shorter). Spaces after the semicolons are optional in the grammar.
PAGE_CSP = (
    "default-src 'self';img-src 'self' data:;object-src 'none';base-uri 'none';form-action 'self';frame-src 'none'"
)


@dataclass(frozen=True)
class Neighbour:
    """A document a page links to as the previous or next one of its folder."""

    path: str
    title: str  # "" when the document has none: the link shows its file name


def folder_neighbours(titles: dict[str, str]) -> dict[str, tuple[Neighbour | None, Neighbour | None]]:
    """Each document's previous and next document in its own folder, in path order (as the home page lists them).

    `titles` holds the documents that get a page, with their titles.
    """
    by_folder: dict[str, list[str]] = {}
    for path in sorted(titles):
        by_folder.setdefault(path.rpartition("/")[0], []).append(path)
    out: dict[str, tuple[Neighbour | None, Neighbour | None]] = {}
    for paths in by_folder.values():
        for n, path in enumerate(paths):
            before = Neighbour(paths[n - 1], titles[paths[n - 1]]) if n > 0 else None
            after = Neighbour(paths[n + 1], titles[paths[n + 1]]) if n + 1 < len(paths) else None
            out[path] = (before, after)
    return out


@dataclass
class PageContext:
    """What every page of one build needs: the settings, the history, the repository, the templates, the index."""

    config: Config
    commits: list[CommitInfo]
    repo: GitRepo
    env: Environment
    reader: IndexReader
    _snapshot_blobs: dict[str, str] | None = field(default=None)
    _before_start: str | None = field(default=None)  # the parent of the first indexed commit ("" for none)
    pages: PageWriter = field(default_factory=PageWriter)
    cited_by: CitedBy | None = None  # who cites each document at the built commit
    # A PDF version's pages as printed, by blob, published before its version page is rendered.
    pdf_figures: dict[str, Markup] = field(default_factory=dict)
    # The paths with a history page (history_pages.has_history_page): only their document and
    # version pages link to one (a version page's text is immutable; it is rendered again when the
    # history page or the document page it links comes or goes: builder, _versions).
    history_paths: frozenset[str] = frozenset()
    # The paths with a document page (at the built commit, extracted): a version page links its path's.
    doc_paths: frozenset[str] = frozenset()
    # Each document page's previous and next document of its folder (`folder_neighbours`).
    neighbours: dict[str, tuple[Neighbour | None, Neighbour | None]] = field(default_factory=dict)

    def site_values(self, rel: str, lang: str = "") -> dict[str, Any]:
        """What every page's template reads; `lang` is a document's language (the site's by default)."""
        return {
            "title": self.config.site_title,
            "lang": lang or self.config.site_language,
            "root": root_prefix(rel),
            "site_url": self.config.site_url,
            "index_file": "pincite.sqlite" if self.config.site_publish_index else None,
            "csp": Markup(CSP),  # a constant: written as it is, not with its quotes escaped on every page
            "page_csp": Markup(PAGE_CSP),
            "human_size": human_size,
        }

    def before_history(self, path: str) -> bool:
        """Whether `path` was there before the indexed history starts (`history_start` set): its
        version's first indexed commit is then not when it came, which is not known."""
        if not self.config.history_start:
            return False
        if self._before_start is None:
            try:
                self._before_start = self.repo.resolve_commit(self.commits[0].sha + "^")
            except PinciteError:
                self._before_start = ""  # the history starts at the repository's first commit
        return bool(self._before_start) and self.repo.blob_at(self._before_start, path) is not None

    def _snapshot_meta_blob(self, path: str) -> str | None:
        """The blob of the metadata beside snapshot `path` at the built commit, from one tree listing."""
        if not path.startswith("snapshots/"):
            return None
        if self._snapshot_blobs is None:
            entries = self.repo.tree_entries(self.commits[-1].sha, ("snapshots",))
            self._snapshot_blobs = {e.path: e.sha for e in entries}
        return self._snapshot_blobs.get(path + ".meta.json")

    def snapshot_key(self, path: str) -> str:
        """The blob of a snapshot's metadata file: its page shows it, so a change re-renders the page."""
        return self._snapshot_meta_blob(path) or ""

    def provenance(self, path: str) -> dict[str, str] | None:
        """What a snapshot's page shows of its fetch; None for other documents or unreadable metadata."""
        blob = self._snapshot_meta_blob(path)
        if blob is None:
            return None
        # Loaded for a snapshot's page only: it brings the HTTP client (half a second to import).
        from indexer.snapshots.store import SnapshotMeta

        try:
            meta = SnapshotMeta.loads(self.repo.read_blob(blob), path)
        except PinciteError:
            return None
        return {
            "url": meta.url or "",
            "href": safe_link(meta.url or "") or "",
            "final_url": meta.final_url or "",
            "fetched_at": meta.fetched_at or "",
            "content_type": meta.content_type or "",
        }


def safe_link(url: str) -> str | None:
    """`url` when it is an http(s) address a page may link to; None for any other scheme.

    A snapshot's metadata is committed data anyone can edit: a `javascript:` or `data:`
    URL there must not become a link, whatever the CSP would do with it.
    """
    candidate = url.strip()
    scheme = candidate.split(":", 1)[0].lower() if ":" in candidate else ""
    return candidate if scheme in ("http", "https") and candidate.lower().startswith(scheme + "://") else None


def original_file(meta: VersionMeta, path: str) -> str | None:
    """Where the original bytes of an extracted version are published, if at all.

    PDFs are served as PDFs (the reader's viewer opens them at `#page=N`); fetched HTML is
    never served as HTML from the site's origin: it is published as text/plain, a download.
    """
    lower = path.lower()
    if meta.source_class == "text":
        return None
    if lower.endswith(".pdf"):
        return f"files/{meta.blob}.pdf"
    if lower.endswith((".html", ".htm")):
        return f"files/{meta.blob}.txt"
    return None


def _pdf_href(root: str, original: str | None) -> str | None:
    """Page markers link into the original PDF (`#page=N`); other originals have no pages."""
    return root + original if original and original.endswith(".pdf") else None


def _text_and_anchors(ctx: PageContext, meta: VersionMeta) -> tuple[str, list[PassageAnchor]]:
    return ctx.reader.version_text(meta.id), ctx.reader.passage_anchors(meta.id)


def render_version_page(ctx: PageContext, meta: VersionMeta, path: str, target: Path) -> None:
    rel = f"v/{meta.blob}.html"
    text, anchors = _text_and_anchors(ctx, meta)
    original = original_file(meta, path)
    root = root_prefix(rel)
    view = source_view(text, anchors, meta.page_starts, _pdf_href(root, original))
    html = ctx.env.get_template("version.html").render(
        pdf_pages=ctx.pdf_figures.get(meta.blob),
        site=ctx.site_values(rel, document_language(path, text, ctx.config.site_language)),
        meta=meta,
        path=path,
        source=view,
        outline=source_outline(meta, path, text),
        original=original,
        download_name=PurePosixPath(path).name,
        doc_href=page_href(path, "doc") if path in ctx.doc_paths else None,
        history_href=page_href(path, "changes") if path in ctx.history_paths else None,
    )
    ctx.pages.write(target, html)


def render_doc_page(
    ctx: PageContext, meta: VersionMeta, pv: PathVersion, target: Path, links: DocumentLinks | None = None
) -> tuple[str | None, bool]:
    """The page of a document at the built commit; `links` resolves (and records) its Markdown links.

    Returns why the document is shown as source alone when its rendered view was over budget
    (else None), and whether that is so for this build only (its rendering was stopped as hung).
    """
    rel = doc_page_path(pv.path)
    text, anchors = _text_and_anchors(ctx, meta)
    original = original_file(meta, pv.path)
    root = root_prefix(rel)
    cited_by = ctx.cited_by.of(pv.path) if ctx.cited_by else []
    marks = gutter_marks(cited_by, root, meta.line_count)
    view = source_view(text, anchors, meta.page_starts, _pdf_href(root, original), marks)
    rendered, headings, over_budget, hung = _rendered_view(meta, pv.path, text, links, ctx.config)
    intro = ctx.commits[pv.first_seq]
    parts = pv.path.split("/")
    html = ctx.env.get_template("document.html").render(
        site=ctx.site_values(rel, document_language(pv.path, text, ctx.config.site_language)),
        meta=meta,
        path=pv.path,
        source=view,
        rendered=rendered,
        over_budget=over_budget,
        headings=headings,
        outline=None if rendered else source_outline(meta, pv.path, text),
        toc=table_of_contents(headings, meta.line_count),
        intro=intro,
        history_cut=pv.first_seq == 0 and ctx.before_history(pv.path),
        original=original,
        download_name=parts[-1],
        has_history=pv.path in ctx.history_paths,
        provenance=ctx.provenance(pv.path),
        folder="/".join(parts[:-1]) or ".",
        top_folder=parts[0],
        permalink_path=url_path(pv.path),
        pages=len(meta.page_starts) + 1 if meta.page_starts else 0,
        cited_by=[(place, citing_link(place, root)) for place in cited_by],
        cited_by_head=ctx.commits[-1].sha,
        pager=_pager(ctx, pv.path),
    )
    ctx.pages.write(target, html)
    return over_budget, hung


def _pager(ctx: PageContext, path: str) -> list[dict[str, str]]:
    """The previous and next documents of the page's folder, as the template links them (by file name: same folder)."""
    before, after = ctx.neighbours.get(path, (None, None))
    return [
        {"rel": rel, "label": label, "href": _name(doc_page_path(n.path)), "title": n.title, "name": _name(n.path)}
        for rel, label, n in (("prev", "Previous", before), ("next", "Next", after))
        if n is not None
    ]


def _name(path: str) -> str:
    return path.rpartition("/")[2]


View = tuple[Any, list[tuple[int, str, str]]]


def _rendered_view(
    meta: VersionMeta, path: str, text: str, links: DocumentLinks | None, config: Config | None = None
) -> tuple[Any, list[tuple[int, str, str]], str | None, bool]:
    """The rendered view of a Markdown, reST or AsciiDoc text document and its headings, within the budget,
    and whether a refusal holds for this build only (`Budgeted.hung`).

    (None, [], None, False) shows the source alone; (None, [], reason, …) shows it because the view
    was over budget.
    """
    if meta.source_class != "text":
        return None, [], None, False
    fmt = text_format(path)
    render: Callable[[], View]
    if fmt == "markdown" and meta.is_markdown:
        if links is not None and links.targets.is_mdx(path):  # a Docusaurus site's page
            render = partial(markdown_view, text, links, is_mdx=True)
        else:
            render = partial(markdown_view, text, links)
    elif fmt == "rst":
        from indexer.config import role_urls
        from indexer.site.rst_view import DEFAULT_ROLE_URLS, rst_view  # docutils loads only for a corpus with reST

        render = partial(rst_view, text, links, role_urls(config or Config(), DEFAULT_ROLE_URLS))
    elif fmt == "asciidoc":
        from indexer.site.asciidoc_view import asciidoc_view  # without Asciidoctor: the source view

        render = partial(_asciidoc_or_source, asciidoc_view, text, links)
    else:
        return None, [], None, False
    made = within_budget(fmt, path, text, render)
    view, headings = made.value if made.value is not None else (None, [])
    if view is None and links is not None:
        links.records.clear()  # the source view links nowhere
    return view, headings, made.refused, made.hung


def _asciidoc_or_source(view: Any, text: str, links: DocumentLinks | None) -> tuple[Any, list[tuple[int, str, str]]]:
    return view(text, links) or (None, [])


def source_outline(meta: VersionMeta, path: str, text: str) -> list[tuple[int, int, str]]:
    """The section titles an AsciiDoc source view lists above the text: (line, depth from 0, title).

    AsciiDoc has no safe rendered view, so its outline links to the titles' line anchors;
    titles inside delimited blocks (a listing that shows `== ...` lines) are not sections.
    """
    if meta.source_class != "text" or text_format(path) != "asciidoc":
        return []
    headings = within_budget("asciidoc", path, text, partial(asciidoc.outline, text.split("\n"))).value or []
    top = min((level for _, level, _ in headings), default=1)
    return [(line, level - top, title) for line, level, title in headings]


TOC_MIN_LINES = 60
TOC_MIN_ENTRIES = 3


def table_of_contents(headings: list[tuple[int, str, str]], line_count: int) -> list[tuple[int, str, str]]:
    """The headings a long page lists in its table of contents: (depth 0 or 1, id, title).

    A lone top heading is the page's title and is left out; the two levels under it are listed.
    Short pages, and pages with fewer than three such headings, get none.
    """
    if line_count < TOC_MIN_LINES or not headings:
        return []
    levels = sorted({level for level, _, _ in headings})
    top = levels[0]
    if sum(1 for level, _, _ in headings if level == top) == 1 and len(levels) > 1:
        levels = levels[1:]
    shown = levels[:2]
    entries = [(shown.index(level), anchor, title) for level, anchor, title in headings if level in shown]
    return entries if len(entries) >= TOC_MIN_ENTRIES else []


def citations_report(ctx: PageContext, pages: AbstractSet[str]) -> tuple[list[dict[str, Any]], str | None]:
    """The citations page's rows: the records of the build's one check (`cited_by.collect`), each with
    links to the citing place, the cited version and where the text stands now."""
    from indexer.text.citation import parse_text_form

    found = ctx.cited_by
    if found is None:
        return [], None
    head = ctx.commits[-1].sha
    rows = []
    for record in found.records:
        data = record.to_json()
        row: dict[str, Any] = {**data, "file_href": citing_href(record.file, record.line, head, pages, ctx.repo)}
        for key, form in (("cited_href", data.get("parsed")), ("now_href", _relocated(data))):
            row[key] = _version_href(ctx, parse_text_form(str(form))) if form else None
        rows.append(row)
    return rows, found.problem


def _relocated(data: CheckRecordJson) -> str | None:
    resolution = data["resolution"]
    return resolution["relocated"] if resolution else None


def _version_href(ctx: PageContext, citation: Any) -> str | None:
    try:
        commit = ctx.repo.resolve_commit(citation.commit)
        entry = ctx.repo.blob_at(commit, citation.path)
    except PinciteError:
        return None
    if entry is None or entry.mode == "tree":
        return None
    return f"v/{entry.sha}.html?commit={commit}&path={url_path(citation.path)}#{citation.selector}"
