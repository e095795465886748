"""Who cites a document: "Cited by" on its page, marks in its source view's gutter, `citations.json`.

Every citation in the repository's documents at the built commit (the documents `pincite impact`
reads: the prose files of the whole tree, as committed) is checked once against that commit, as
`pincite check` checks it (verdict, quote, recovery); the records are the citations page's rows, and
each citation is filed under the document its cited lines stand in now (followed through renames).
A document page lists the citations filed under it — the citing document and line, the lines they
cite there and the verdict at this build — and its source view marks the cited line ranges in the
gutter, each mark a link to the citing place: plain HTML, no script needed. Marks are empty
elements, so the source view's text stays exactly the document's text.

The documents are not read whole on every build: a build records which documents held a
citation's hint at its commit (`Scanned`), and the next reads those and the documents changed
since (one `git diff` of the two commits), never the unchanged rest of the tree.

`citations.json` lists every citation found (citing place, citation, verdict, quote verdict, where
it stands now), so another site or repository can read what cites what.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Set as AbstractSet
from dataclasses import asdict, dataclass, field
from pathlib import Path

from markupsafe import escape

from indexer.citations.check import CheckRecord, check_committed
from indexer.citations.drift import Verdict
from indexer.citations.impact import checked_in_tree, committed_documents
from indexer.citations.resolve import Resolver
from indexer.citations.scan import CITATION_HINT
from indexer.citations.verdicts import VerdictStatus
from indexer.config import Config
from indexer.errors import PinciteError, RepositoryError
from indexer.site.render import doc_page_path, url_path
from indexer.text.citation import Citation, github_url
from indexer.vcs.repo import GitRepo

CITATIONS_JSON = "citations.json"
MARKS_PER_LINE = 6  # citing places marked on one line; the list on the page names them all


@dataclass(frozen=True)
class CitingPlace:
    """One citation in a document, as the cited document's page shows it."""

    file: str
    line: int
    href: str | None  # the citing place: its document page in this site (relative to the root), or GitHub
    citation: str  # as written
    parsed: str
    verdict: str
    quote_verdict: str | None
    cited_path: str
    cited_lines: tuple[int, int] | None
    cited_href: str | None  # the pinned version's page in this site, at the cited lines
    path: str | None  # where the cited lines stand at the built commit (None: deleted, unresolvable)
    lines: tuple[int, int] | None  # and which lines they are there

    @property
    def place(self) -> str:
        return f"{self.file}:{self.line}"

    def to_json(self) -> dict[str, object]:
        data = asdict(self)
        for key in ("cited_lines", "lines"):
            data[key] = list(data[key]) if data[key] else None
        return data


@dataclass(frozen=True)
class Scanned:
    """What a build read of the tree for citations: the commit, and its documents that held a citation's hint."""

    head: str
    hinted: tuple[str, ...]


@dataclass
class CitedBy:
    """Every citation found at the built commit, and those whose cited lines stand in each document."""

    head: str
    places: list[CitingPlace] = field(default_factory=list)
    problem: str | None = None  # why the citations could not be read, if they could not
    # The check's records, every citation found (near-misses and branch links too): the citations page's rows.
    records: list[CheckRecord] = field(default_factory=list, repr=False)
    # The lines (first, last) of each pinned version (by blob) that citations name: a PDF version's
    # pages as printed show the cited pages first (site/pdf_pages.py).
    versions: dict[str, list[tuple[int, int]]] = field(default_factory=dict, repr=False)

    # What this build read of the tree, for the next build to read only what changed since.
    scanned: Scanned | None = field(default=None, repr=False)
    documents_read: int = 0  # the documents whose text this build read to find citations

    _by_path: dict[str, list[CitingPlace]] | None = field(default=None, repr=False)

    def of(self, path: str) -> list[CitingPlace]:
        if self._by_path is None:
            self._by_path = {}
            for place in self.places:
                if place.path is not None:
                    self._by_path.setdefault(place.path, []).append(place)
        return self._by_path.get(path, [])

    def cited_paths(self) -> list[str]:
        """The documents some citation names (every other one's `key` is "")."""
        self.of("")  # fills the index by path
        assert self._by_path is not None
        return sorted(self._by_path)

    def version_lines(self, blob: str) -> list[tuple[int, int]]:
        """The lines of the version `blob` that citations name, sorted, each range once."""
        return sorted(set(self.versions.get(blob, ())))

    def key(self, path: str) -> str:
        """What a document page shows of its citing places: a change means the page is rendered again."""
        places = self.of(path)
        if not places:
            return ""  # most pages: asked for every document page of every build
        # The page names the commit its citing places were verified against: a new head, a new page.
        shown = json.dumps([self.head, [p.to_json() for p in places]], sort_keys=True)
        return hashlib.sha256(shown.encode("utf-8")).hexdigest()[:16]

    def to_json(self) -> dict[str, object]:
        return {
            "head": self.head,
            "problem": self.problem,
            "citations": [p.to_json() for p in self.places],
        }

    def write(self, site: Path) -> None:
        (site / CITATIONS_JSON).write_text(json.dumps(self.to_json(), ensure_ascii=False), encoding="utf-8")


def collect(
    repo: GitRepo, config: Config, index_path: Path, head: str, pages: set[str], previous: Scanned | None = None
) -> CitedBy:
    """Check every citation in the repository's documents at `head` once; `pages` are the document pages built.

    The one check serves both the citations page (its records, recovery included) and who cites
    each document (`CitedBy.places`). With `previous` (what an earlier build read), only the
    documents that held a hint then, and those changed since, are read.
    """
    found = CitedBy(head)
    resolver = Resolver(repo, config, index_path)
    try:
        documents = _documents(repo, head, previous)
        found.documents_read = len(documents)
        # Only a text with a citation's hint is checked: filtered once here, for both uses.
        hinted = [(path, text) for path, text in documents if CITATION_HINT.search(text)]
        found.scanned = Scanned(head, tuple(path for path, _text in hinted))
        found.records = check_committed(hinted, resolver, head).records
        for record in found.records:
            if record.verdict is None or record.found.citation is None:
                continue  # a near-miss or a branch link: on the citations page, citing nothing
            quote = record.quote_verdict.status if record.quote_verdict else None
            href = citing_href(record.file, record.line, head, pages, repo)
            found.places.append(_place(record.file, record.line, href, record.found.raw, record.verdict, quote))
            if record.verdict.resolved is not None:
                resolved = record.verdict.resolved
                found.versions.setdefault(resolved.blob, []).append(resolved.lines)
    except PinciteError as exc:
        found.problem, found.places, found.records, found.versions = str(exc), [], [], {}
    finally:
        resolver.close()
    return found


def _documents(repo: GitRepo, head: str, previous: Scanned | None) -> list[tuple[str, str]]:
    """(path, text) of the documents that may hold citations at `head`, in path order.

    Every document of the tree, or, after `previous`, its hinted documents still there and the
    documents added, changed or moved to since: an unchanged document without a hint then has none now.
    """
    if previous is None:
        return committed_documents(repo, head, [])[0]
    try:
        touched = repo.touched_paths(previous.head, head)
    except RepositoryError:  # the earlier commit is gone (a rewritten branch): read the whole tree
        return committed_documents(repo, head, [])[0]
    gone = {old for status, old, _new in touched if status in "DR"}
    changed = {new for status, _old, new in touched if status != "D" and checked_in_tree(new)}
    wanted = (set(previous.hinted) - gone) | changed
    return committed_documents(repo, head, sorted(wanted))[0] if wanted else []


def citing_href(path: str, line: int, head: str, pages: AbstractSet[str], repo: GitRepo) -> str | None:
    """Where a reader reads a citing place: its document page in this site when it has one, else GitHub."""
    if path in pages:
        return f"{url_path(doc_page_path(path))}#L{line}"
    return github_url(Citation(head, path, lines=(line, line)), repo.origin_url(), (line, line))


def _place(file: str, line: int, href: str | None, raw: str, verdict: Verdict, quote: str | None) -> CitingPlace:
    resolved = verdict.resolved
    cited = resolved.citation if resolved else verdict.citation
    lines: tuple[int, int] | None = None
    if verdict.status == VerdictStatus.VERIFIED and verdict.relocated is not None:
        lines = verdict.relocated.lines
    elif verdict.status == VerdictStatus.DRIFTED and verdict.new_path is not None and verdict.hunks:
        lines = _drifted_lines(verdict)
    cited_href = None
    if resolved is not None:
        first, last = resolved.lines
        anchor = cited.selector if cited.lines is None else (f"L{first}" if first == last else f"L{first}-L{last}")
        cited_href = f"v/{resolved.blob}.html?commit={resolved.commit}&path={url_path(resolved.path)}#{anchor}"
    return CitingPlace(
        file=file,
        line=line,
        href=href,
        citation=raw,
        parsed=cited.text_form(),
        verdict=verdict.status,
        quote_verdict=quote,
        cited_path=cited.path,
        cited_lines=resolved.lines if resolved else cited.lines,
        cited_href=cited_href,
        path=verdict.new_path if verdict.status in (VerdictStatus.VERIFIED, VerdictStatus.DRIFTED) else None,
        lines=lines,
    )


def _drifted_lines(verdict: Verdict) -> tuple[int, int]:
    """The lines at the built commit that git's hunks put where the cited ones were."""
    first = min(h.new_start for h in verdict.hunks)
    last = max(h.new_start + max(h.new_count, 1) - 1 for h in verdict.hunks)
    return max(1, first), max(1, first, last)


def gutter_marks(places: list[CitingPlace], root: str, line_count: int) -> dict[int, str]:
    """The marks that open each cited line of the source view: links to the citing places on a
    range's first line, a bar on the lines after it. Every mark is an empty element."""
    links: dict[int, list[str]] = {}
    bars: dict[int, set[str]] = {}
    for number, place in enumerate(places, start=1):
        if place.lines is None:
            continue
        first, last = place.lines[0], min(place.lines[1], line_count)
        if first > line_count:
            continue
        label = escape(f"cited by {place.place} ({place.verdict})")
        href = citing_link(place, root) or f"#cited-by-{number}"  # no page to go to: its entry in the list
        links.setdefault(first, []).append(
            f'<a class="cite-mark cite-{place.verdict}" href="{escape(href)}" title="{label}" aria-label="{label}"></a>'
        )
        for n in range(first + 1, last + 1):
            bars.setdefault(n, set()).add(place.verdict)
    marks: dict[int, str] = {}
    for n, anchors in links.items():
        marks[n] = f'<i class="cite-marks">{"".join(anchors[:MARKS_PER_LINE])}</i>'
    for n, verdicts in bars.items():
        if n not in marks:
            verdict = VerdictStatus.DRIFTED if VerdictStatus.DRIFTED in verdicts else sorted(verdicts)[0]
            marks[n] = f'<i class="cite-bar cite-{verdict}"></i>'
    return marks


def citing_link(place: CitingPlace, root: str) -> str | None:
    """Where a reader goes to read the citing place, from a page `root` levels below the site's root."""
    if place.href is None or place.href.startswith("https://"):
        return place.href
    return root + place.href
