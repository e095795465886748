"""Discovery providers: more places to look when a quote stands nowhere in the corpus.

A provider receives an unresolved quote (a `DiscoveryRequest`) and returns candidate
sources (`Candidate`: a URL or a repository path, plus a span when it knows one).
Candidates are suggestions only: pincite never turns one into a citation by itself. A
path candidate is checked by citing it in its own repository; a URL candidate becomes
evidence only through `pincite snapshot URL`, which commits the page so it can be cited.

Providers come from two places:
- `LocalIndexProvider`, shipped with pincite: it searches the other pincite index files
  named in the `discovery_indexes` setting (exact matches after quote normalization);
- Python entry points in the group `pincite.discovery`. The entry point names a class or
  function that is called with the `Config` and returns an object with a `name` and a
  `discover(request)` method (the `DiscoveryProvider` protocol). For example, in the
  host package's `pyproject.toml`::

      [project.entry-points."pincite.discovery"]
      wiki = "acme_pincite.wiki:WikiProvider"

The core never touches the network; a provider that does was installed by the host. A
provider that fails to load or raises is reported as a `ProviderFailure`, and the others
still run: one broken plugin does not break `pincite check`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Protocol, runtime_checkable

from indexer.citations.quote import quote_spans, versions_holding
from indexer.citations.verdicts import CandidateKind
from indexer.config import Config
from indexer.errors import PinciteError
from indexer.index.store import IndexReader
from indexer.shapes import CandidateJson, DiscoveryJson, ProviderFailureJson
from indexer.text.citation import Citation
from indexer.text.model import LineIndex
from indexer.text.normalize import normalize

ENTRY_POINT_GROUP = "pincite.discovery"
CANDIDATES_PER_PROVIDER = 10


@dataclass(frozen=True)
class DiscoveryRequest:
    """An unresolved quote, and the citation it came with (when there is one)."""

    quote: str
    citation: Citation | None
    repo_root: Path
    config: Config


@dataclass(frozen=True)
class Candidate:
    """A place a provider thinks the quote may come from. Always a suggestion."""

    provider: str
    kind: CandidateKind  # a provider outside mypy's sight may pass the plain word
    source: str  # the URL, or the path inside `repository`
    repository: str | None = None  # where a path lives (a repository, an index file)
    commit: str | None = None
    span: tuple[int, int] | None = None  # code points of the source's text
    lines: tuple[int, int] | None = None  # 1-based inclusive
    score: float | None = None  # the provider's own confidence, 0..1, when it has one
    exact: bool = False  # the provider confirmed the normalized quote stands there
    note: str = ""

    def __post_init__(self) -> None:
        if self.kind not in set(CandidateKind):
            raise ValueError(f"candidate kind {self.kind!r} is not one of {', '.join(CandidateKind)}")
        if self.kind == CandidateKind.URL and not self.source.startswith(("http://", "https://")):
            raise ValueError(f"URL candidate {self.source!r} is not an http(s) URL")
        if self.span is not None and not 0 <= self.span[0] <= self.span[1]:
            raise ValueError(f"candidate span {self.span} is reversed")

    @property
    def next_step(self) -> str:
        if self.kind == CandidateKind.URL:
            return f"pincite snapshot {self.source}"
        return "cite it in its own repository with `pincite cite`, then check the quote"

    def to_json(self) -> CandidateJson:
        return {
            "provider": self.provider,
            "kind": self.kind,
            "source": self.source,
            "repository": self.repository,
            "commit": self.commit,
            "chars": list(self.span) if self.span else None,
            "lines": list(self.lines) if self.lines else None,
            "score": self.score,
            "exact": self.exact,
            "note": self.note,
            "suggestion": True,
            "next_step": self.next_step,
        }


@runtime_checkable
class DiscoveryProvider(Protocol):
    """What a discovery provider offers pincite."""

    name: str

    def discover(self, request: DiscoveryRequest) -> Iterable[Candidate]: ...


@dataclass(frozen=True)
class ProviderFailure:
    """A discovery provider that could not answer, and why (the others still did)."""

    provider: str
    message: str

    def to_json(self) -> ProviderFailureJson:
        return {"provider": self.provider, "error": self.message}


@dataclass(frozen=True)
class DiscoveryResult:
    """What the discovery providers suggest as a quote's source, and the providers that failed."""

    candidates: tuple[Candidate, ...] = ()
    failures: tuple[ProviderFailure, ...] = ()

    def to_json(self) -> DiscoveryJson:
        return {
            "candidates": [c.to_json() for c in self.candidates],
            "failures": [f.to_json() for f in self.failures],
        }


def load_providers(config: Config) -> tuple[list[DiscoveryProvider], list[ProviderFailure]]:
    """The shipped local provider (when `discovery_indexes` is set) and every installed one."""
    providers: list[DiscoveryProvider] = []
    failures: list[ProviderFailure] = []
    if config.discovery_indexes:
        providers.append(LocalIndexProvider(config))
    for entry in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            made = entry.load()(config)
        except Exception as exc:  # a third-party plugin may fail in any way; report it, go on
            failures.append(ProviderFailure(entry.name, f"could not load {entry.value}: {exc}"))
            continue
        if not isinstance(made, DiscoveryProvider):
            failures.append(ProviderFailure(entry.name, f"{entry.value} has no `name` and `discover(request)`"))
            continue
        providers.append(made)
    return providers, failures


def run_providers(
    request: DiscoveryRequest, providers: Sequence[DiscoveryProvider], limit: int = CANDIDATES_PER_PROVIDER
) -> DiscoveryResult:
    """Ask every provider; keep at most `limit` well-formed candidates from each."""
    candidates: list[Candidate] = []
    failures: list[ProviderFailure] = []
    for provider in providers:
        name = str(getattr(provider, "name", type(provider).__name__))
        found: list[object] = []
        try:
            # Consumed one by one: what a provider yielded before it failed is kept.
            for item in provider.discover(request):
                found.append(item)
        except Exception as exc:  # see load_providers: a plugin's failure is reported, not raised
            failures.append(ProviderFailure(name, _failure_message(exc)))
        wrong = [c for c in found if not isinstance(c, Candidate)]
        if wrong:
            failures.append(ProviderFailure(name, f"returned {type(wrong[0]).__name__}, not Candidate"))
        candidates += [c for c in found if isinstance(c, Candidate)][:limit]
    return DiscoveryResult(tuple(candidates), tuple(failures))


# -- the shipped provider --------------------------------------------------------------
class LocalIndexProvider:
    """Searches other pincite index files (`discovery_indexes`) for the exact quote."""

    name = "local-indexes"

    def __init__(self, config: Config) -> None:
        self.indexes = config.discovery_indexes

    def discover(self, request: DiscoveryRequest) -> Iterator[Candidate]:
        wanted = normalize(request.quote)
        if not wanted:
            return
        missing: list[str] = []
        for name in self.indexes:
            path = Path(name).expanduser()
            path = path if path.is_absolute() else request.repo_root / path
            if path.is_file():
                yield from self._search(path, request.quote)
            else:
                missing.append(f"{name} (looked at {path})")
        if missing:
            raise PinciteError(
                f"discovery index(es) not found: {'; '.join(missing)}",
                hint="fix `discovery_indexes` in the config, or build that index with `pincite build`",
            )

    def _search(self, index_path: Path, quote: str) -> list[Candidate]:
        wanted = normalize(quote)
        reader = IndexReader(index_path)
        try:
            seq = reader.head_seq()
            commit = reader.commits()[-1].sha
            found = []
            for path, version_id in versions_holding(reader, quote, seq):
                text = reader.version(version_id).text or ""
                index = LineIndex(text)
                for span in quote_spans(wanted, text, CANDIDATES_PER_PROVIDER):
                    lines = index.lines_of_span(span)
                    note = f"exact quote in {path} at {commit[:12]} of index {index_path}"
                    found.append(
                        Candidate(
                            self.name,
                            CandidateKind.PATH,
                            path,
                            str(index_path),
                            commit,
                            (span.start, span.end),
                            lines,
                            1.0,
                            True,
                            note,
                        )
                    )
                    if len(found) >= CANDIDATES_PER_PROVIDER:
                        return found
            return found
        finally:
            reader.close()


def _failure_message(exc: Exception) -> str:
    if isinstance(exc, PinciteError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"
