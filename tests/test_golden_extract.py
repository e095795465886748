"""Golden outputs guard the extraction version: same identity, same text, byte for byte.

Offsets of extracted documents index the extractor's output, so an output change under an
unchanged identity would silently move every citation into such a document. When a change
is intended, bump VERSION in indexer/extract_pdf.py or extract_html.py and regenerate:

    PINCITE_REGENERATE_GOLDEN=1 pytest tests/test_golden_extract.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from indexer.extract.registry import extract, extractor_for

GOLDEN = Path(__file__).parent / "golden" / "extract"
INPUTS = sorted(p.name for p in (GOLDEN / "inputs").iterdir())
REGENERATE = os.environ.get("PINCITE_REGENERATE_GOLDEN") == "1"


def _version_part(identity: str) -> str:
    return identity.split(" ", 1)[0]  # "pdf/1": the extractor name and pincite's extraction version


@pytest.mark.parametrize("name", INPUTS)
def test_extraction_matches_golden(name: str) -> None:
    result = extract((GOLDEN / "inputs" / name).read_bytes(), name)
    meta = {
        "identity": result.identity,
        "title": result.title,
        "page_starts": list(result.page_starts),
        "notes": list(result.notes),
    }
    text_file, meta_file = GOLDEN / f"{name}.txt", GOLDEN / f"{name}.json"
    if REGENERATE:
        text_file.write_bytes(result.text.encode("utf-8"))
        meta_file.write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return
    golden_meta = json.loads(meta_file.read_text(encoding="utf-8"))
    golden_text = text_file.read_bytes().decode("utf-8")
    if result.identity != golden_meta["identity"]:
        assert _version_part(result.identity) != _version_part(golden_meta["identity"]) or (
            result.text == golden_text
        ), f"{name}: library versions changed the output; the identity records them, so regenerate the goldens"
        # Newer libraries that give the same text still pass; a bumped extraction VERSION means the
        # goldens are stale, which must fail rather than skip (a skip would retire the guard).
        assert _version_part(result.identity) == _version_part(golden_meta["identity"]), (
            f"{name}: goldens recorded with {golden_meta['identity']!r}, active {result.identity!r}: regenerate them"
        )
        golden_meta["identity"] = result.identity
    assert result.text == golden_text, (
        f"{name}: extracted text changed under the same identity {result.identity!r}: "
        "bump VERSION of the extractor and regenerate the goldens"
    )
    assert meta == golden_meta


def test_every_golden_input_has_an_extractor() -> None:
    assert INPUTS
    for name in INPUTS:
        extractor = extractor_for(name)
        assert extractor is not None and extractor.source_class == "extracted"
