"""Each record's JSON has exactly the fields its shape in indexer/shapes.py declares, and a view keeps its own."""

from __future__ import annotations

from typing import Any

from indexer import api
from indexer.integrations import agent_shapes
from indexer.shapes import (
    CheckRecordJson,
    CitationFound,
    CitedJson,
    CitedText,
    LastSeenJson,
    LastSeenOut,
    NearMatchJson,
    NearOut,
    PassageHit,
    ResolvedTextJson,
    SearchHitJson,
    Snapshot,
    SnapshotJson,
    VerdictJson,
    view,
)
from indexer.snapshots.store import SnapshotMeta
from indexer.text.citation import Citation
from tests.conftest import CorpusRepo


def _fields(shape: Any) -> list[str]:
    return list(shape.__annotations__)


def test_a_view_takes_its_fields_in_its_order_and_drops_the_rest() -> None:
    record = {"similarity": 0.5, "chars": [1, 2], "text": "t", "exact": False}
    record |= {"citation": "c", "path": "p", "lines": [1, 1], "word_diff": "d", "label": "l"}
    near = view(record, NearOut)
    assert list(near) == _fields(NearOut) and near["text"] == "t"
    assert set(_fields(NearMatchJson)) == set(record)


def test_every_view_is_a_part_of_its_records_shape() -> None:
    pairs = [(CitedText, CitedJson), (Snapshot, SnapshotJson), (NearOut, NearMatchJson), (LastSeenOut, LastSeenJson)]
    pairs += [
        (PassageHit, SearchHitJson),
        (CitationFound, CheckRecordJson),
    ]  # the MCP tools' views of CLI records  # the MCP search hit's fields, as `pincite search --json` has them
    for part, whole in pairs:
        assert set(_fields(part)) <= set(_fields(whole)), part.__name__


def test_a_snapshots_metadata_has_the_fields_of_its_shape() -> None:
    meta = SnapshotMeta(
        url="https://example.org/",
        final_url="https://example.org/",
        fetched_at="2026-01-01T00:00:00Z",
        status=200,
        content_type="text/html",
        charset="utf-8",
        size=3,
        sha256="0" * 64,
        resolved_ip="93.184.216.34",
        pincite_version="0.1.0",
        extractor=None,
        path="snapshots/example.org/index.html",
    )
    assert set(meta.to_json()) == set(_fields(SnapshotJson))
    data: dict[str, Any] = dict(meta.to_json())
    assert agent_shapes.snapshot_out(meta) == {k: data[k] for k in _fields(Snapshot)}


def test_cited_resolved_and_verdict_json_have_the_fields_of_their_shapes(corpus_repo: CorpusRepo) -> None:
    first = corpus_repo.commit({"corpus/a.md": "# A\n\none\ntwo\n"})
    corpus_repo.commit({"corpus/a.md": "# A\n\none\nTWO\n"})
    cited = api.cite("corpus/a.md", corpus_repo.root, lines=(3, 3), rev=first, site_url="https://docs.example.org/")
    assert set(cited.to_json()) == set(_fields(CitedJson))
    found = api.resolve(Citation(first, "corpus/a.md", lines=(4, 4)), corpus_repo.root, context=1)
    assert set(found.to_json()) == set(_fields(ResolvedTextJson))
    [checked] = api.verify([Citation(first, "corpus/a.md", lines=(4, 4))], corpus_repo.root)
    assert checked.verdict.status == "drifted"
    assert set(checked.verdict.to_json()) == set(_fields(VerdictJson))
    out = agent_shapes.cited_out(cited)
    assert out["permalink"] == cited.permalink and out["markdown"] == cited.markdown()
    assert list(out) == [*_fields(CitedText), "github_url", "swhid", "markdown"]
