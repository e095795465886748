"""Discovery providers: entry points, the shipped local-index provider, and `check --json`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from indexer.api import build
from indexer.citations.discovery import (
    ENTRY_POINT_GROUP,
    Candidate,
    DiscoveryRequest,
    LocalIndexProvider,
    load_providers,
    run_providers,
)
from indexer.config import Config
from indexer.text.citation import Citation
from tests.conftest import CorpusRepo

CITED = "Visitors sign the guest book at the front desk before they go upstairs."
ELSEWHERE = "Parcels for staff are kept in the mail room until five in the afternoon."

PLUGIN = '''
from indexer.citations.discovery import Candidate


class WikiProvider:
    """Answers every quote with one URL and one repository path; records what it was asked."""

    name = "acme-wiki"

    def __init__(self, config):
        self.config = config

    def discover(self, request):
        return [
            Candidate(self.name, "url", "https://wiki.example.org/handbook#guests", note=request.quote[:20]),
            Candidate(self.name, "path", "policies/visitors.md", repository="acme/policies", lines=(4, 5)),
        ]


class BrokenProvider:
    name = "broken"

    def __init__(self, config):
        pass

    def discover(self, request):
        raise RuntimeError("the wiki is down")


def not_a_provider(config):
    return object()
'''


def install_plugin(site: Path) -> Path:
    """A tiny installed distribution: a module plus a .dist-info with entry points."""
    site.mkdir(parents=True, exist_ok=True)
    (site / "acme_discovery.py").write_text(PLUGIN, encoding="utf-8")
    info = site / "acme_discovery-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-discovery\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        textwrap.dedent(
            f"""\
            [{ENTRY_POINT_GROUP}]
            acme = acme_discovery:WikiProvider
            broken = acme_discovery:BrokenProvider
            missing = acme_discovery:NoSuchThing
            shapeless = acme_discovery:not_a_provider
            """
        ),
        encoding="utf-8",
    )
    return site


def corpus_with_removed_quote(repo: CorpusRepo) -> str:
    first = repo.commit({"corpus/handbook.md": f"# Handbook\n\n{CITED}\n\nOther rules.\n"}, "Add the handbook")
    repo.commit({"corpus/handbook.md": "# Handbook\n\nOther rules.\n"}, "Drop the guest book rule")
    build(repo.root, site=False)
    return first


def test_entry_point_providers_load_and_failures_are_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(install_plugin(tmp_path / "site")))
    providers, failures = load_providers(Config())
    assert [p.name for p in providers] == ["acme-wiki", "broken"]
    assert {f.provider for f in failures} == {"missing", "shapeless"}
    request = DiscoveryRequest(CITED, None, tmp_path, Config())
    result = run_providers(request, providers)
    assert [c.source for c in result.candidates] == ["https://wiki.example.org/handbook#guests", "policies/visitors.md"]
    assert result.candidates[0].to_json()["next_step"] == "pincite snapshot https://wiki.example.org/handbook#guests"
    assert [(f.provider, f.message) for f in result.failures] == [("broken", "RuntimeError: the wiki is down")]


def test_provider_suggestions_are_visible_in_check_json(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    first = corpus_with_removed_quote(corpus_repo)
    document = tmp_path / "report.md"
    document.write_text(
        f'The handbook said "{CITED}" ({Citation(first, "corpus/handbook.md", lines=(3, 3)).text_form()})\n'
    )
    site = install_plugin(tmp_path / "site")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(
        [sys.executable, "-m", "indexer.cli.main", "check", "--json", "--repo", str(corpus_repo.root), str(document)],
        capture_output=True,
        env=env,
        text=True,
    )
    assert "Traceback" not in proc.stderr
    report = json.loads(proc.stdout)
    (record,) = report["records"]
    recovery = record["recovery"]
    assert recovery["outcome"] == "not_found"
    candidates = recovery["discovery"]["candidates"]
    assert [(c["provider"], c["kind"], c["source"]) for c in candidates] == [
        ("acme-wiki", "url", "https://wiki.example.org/handbook#guests"),
        ("acme-wiki", "path", "policies/visitors.md"),
    ]
    assert all(c["suggestion"] is True for c in candidates)
    assert candidates[0]["note"] == CITED[:20]
    failures = {f["provider"] for f in recovery["discovery"]["failures"]}
    assert failures == {"broken", "missing", "shapeless"}


def test_providers_are_not_asked_when_the_quote_stands_in_the_corpus(
    corpus_repo: CorpusRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = corpus_repo.commit({"corpus/a.md": f"# A\n\n{CITED}\n"})
    corpus_repo.commit({"corpus/a.md": "# A\n", "corpus/b.md": f"{CITED}\n"})
    build(corpus_repo.root, site=False)
    monkeypatch.syspath_prepend(str(install_plugin(tmp_path / "site")))
    from indexer.citations.check import check_paths
    from indexer.vcs.repo import GitRepo

    document = tmp_path / "report.md"
    document.write_text(f'"{CITED}" {Citation(first, "corpus/a.md", lines=(3, 3)).text_form()}\n')
    report = check_paths([document], GitRepo(corpus_repo.root))
    (record,) = report.records
    assert record.recovery is not None and record.recovery.search is not None
    assert [c.path for c in record.recovery.search.places] == ["corpus/b.md"]  # a.md stands: not applied
    assert record.recovery.discovery is None


def test_local_provider_searches_other_indexes(
    corpus_repo: CorpusRepo, make_repo: Callable[[str], CorpusRepo], tmp_path: Path
) -> None:
    other = make_repo("other")
    other.commit({"corpus/mail.md": f"# Mail\n\nIntro line.\n{ELSEWHERE}\n"}, "Mail rules")
    build(other.root, site=False)
    other_index = other.root / ".pincite" / "index.sqlite"
    first = corpus_repo.commit({"corpus/a.md": f"# A\n\n{ELSEWHERE}\n"})
    corpus_repo.commit({"corpus/a.md": "# A\n"})
    build(corpus_repo.root, site=False)
    (corpus_repo.root / "pincite.toml").write_text(f'discovery_indexes = ["{other_index}", "missing.sqlite"]\n')

    from indexer.citations.check import check_paths
    from indexer.vcs.repo import GitRepo

    document = tmp_path / "report.md"
    document.write_text(f'"{ELSEWHERE}" {Citation(first, "corpus/a.md", lines=(3, 3)).text_form()}\n')
    report = check_paths([document], GitRepo(corpus_repo.root))
    (record,) = report.records
    assert record.recovery is not None and record.recovery.discovery is not None
    (candidate,) = [c for c in record.recovery.discovery.candidates if c.provider == "local-indexes"]
    assert (candidate.kind, candidate.source, candidate.lines, candidate.exact) == (
        "path",
        "corpus/mail.md",
        (4, 4),
        True,
    )
    assert candidate.commit == other.head() and candidate.repository == str(other_index)
    text = (other.root / "corpus/mail.md").read_text()
    assert candidate.span is not None and text[candidate.span[0] : candidate.span[1]] == ELSEWHERE
    # The local provider names the setting to fix when one of its indexes is missing.
    failures = record.recovery.discovery.failures
    assert any(f.provider == "local-indexes" and "missing.sqlite" in f.message for f in failures)


def test_local_provider_finds_typographic_variants(make_repo: Callable[[str], CorpusRepo], tmp_path: Path) -> None:
    other = make_repo("other")
    other.commit({"corpus/q.md": "He said \u201cdon\u2019t   wait\u201d \u2014 then left.\n"})
    build(other.root, site=False)
    config = Config(discovery_indexes=(str(other.root / ".pincite" / "index.sqlite"),))
    found = list(LocalIndexProvider(config).discover(DiscoveryRequest('"don\'t wait" - then', None, tmp_path, config)))
    text = (other.root / "corpus/q.md").read_text(encoding="utf-8")
    assert [c.source for c in found] == ["corpus/q.md"] and found[0].span is not None
    assert text[found[0].span[0] : found[0].span[1]] == "\u201cdon\u2019t   wait\u201d \u2014 then"


def test_candidates_validate_their_fields() -> None:
    with pytest.raises(ValueError, match="not an http"):
        Candidate("p", "url", "file:///etc/passwd")
    with pytest.raises(ValueError, match="kind"):
        Candidate("p", "email", "someone@example.org")
    with pytest.raises(ValueError, match="reversed"):
        Candidate("p", "path", "a.md", span=(5, 2))


def test_installed_providers_are_looked_up_only_when_a_recovery_asks_them(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    """Finding installed plugins reads every installed package's metadata: a check whose
    citations all hold never loads one; a check with a quote found nowhere still asks them."""
    first = corpus_with_removed_quote(corpus_repo)
    site = install_plugin(tmp_path / "site")
    marker = tmp_path / "loaded"
    (site / "acme_discovery.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).touch()\n" + PLUGIN, encoding="utf-8"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}

    def check(text: str) -> dict[str, Any]:
        note = tmp_path / "note.md"
        note.write_text(text, encoding="utf-8")
        command = [sys.executable, "-m", "indexer.cli.main", "check", "--json", "--repo", str(corpus_repo.root)]
        proc = subprocess.run([*command, str(note)], capture_output=True, env=env, text=True)
        assert "Traceback" not in proc.stderr
        return json.loads(proc.stdout)

    holding = Citation(first, "corpus/handbook.md", lines=(1, 1)).text_form()
    assert check(f'As the handbook says, "Handbook" ({holding}).\n')["records"][0]["verdict"] == "verified"
    assert not marker.exists()
    removed = Citation(first, "corpus/handbook.md", lines=(3, 3)).text_form()
    report = check(f'The handbook said "{CITED}" ({removed})\n')
    assert report["records"][0]["recovery"]["discovery"]["candidates"]
    assert marker.exists()
