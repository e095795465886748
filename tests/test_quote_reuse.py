"""A check run of many false quotes reuses what is the same for each of them, and says the same.

A false quote's check also looks for its near place in the cited document (its words in another
spacing or order) and, for the run's first few, searches deeply (near matches, where the words
were last seen). What those ask of a document or of the index is the same for every quote citing
it: the run answers it once. These tests hold the answers to what they are without that reuse,
and count the work.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from indexer import build
from indexer.citations import memo as memo_module
from indexer.citations import quote as quote_module
from indexer.citations.check import check_paths
from indexer.citations.memo import Memo
from indexer.citations.resolve import Resolver
from indexer.text.citation import Citation
from indexer.vcs.repo import GitRepo
from tests.conftest import CorpusRepo
from tests.test_check import _without_times  # the recovery attempts' times left out

WORDS = (
    *("invoice", "ledger", "archive", "retention", "backup", "mirror", "audit", "policy", "record", "storage"),
    *("account", "review", "office", "report", "budget", "notice", "summary", "contract", "schedule", "register"),
)


def _documents(rng: random.Random, count: int) -> dict[str, str | bytes | None]:
    """`count` Markdown documents of a heading and a few paragraphs of lines of 7-10 words."""
    docs: dict[str, str | bytes | None] = {}
    for n in range(count):
        paragraphs = [
            "\n".join(" ".join(rng.choice(WORDS) for _ in range(rng.randint(7, 10))) for _ in range(3))
            for _ in range(4)
        ]
        docs[f"corpus/doc{n}.md"] = f"# Document {n}\n\n" + "\n\n".join(paragraphs) + "\n"
    return docs


def _lines(docs: dict[str, str | bytes | None]) -> list[tuple[str, int, str]]:
    """(path, line number, text) of every line of words, the documents taken in turn."""
    per_doc = [
        [(path, i, line) for i, line in enumerate(text.split("\n"), start=1) if line and not line.startswith("#")]
        for path, text in sorted((p, str(t)) for p, t in docs.items())
    ]
    return [line for row in zip(*per_doc, strict=True) for line in row]


def _note(head: str, cited: list[tuple[str, int, str]], kinds: list[str]) -> str:
    """A note citing each line with a quote of its kind: the line, its words reversed, another document's line."""
    parts = []
    for n, ((path, number, text), kind) in enumerate(zip(cited, kinds, strict=True)):
        if kind == "true":
            quote = text
        elif kind == "false":
            quote = " ".join(reversed(text.split()))
        elif kind == "respaced":  # the characters stand, the spaces moved: a near place in another spacing
            quote = text.replace(" ", "", 1)
        else:
            quote = next(t for p, _, t in cited[n + 1 :] + cited[:n] if p != path)
        parts.append(f'- "{quote}" {Citation(head, path, lines=(number, number)).text_form()}\n')
    return "".join(parts)


def _check(repo: Path, note: Path) -> Any:
    return _without_times(check_paths([note], GitRepo(repo)).to_json())


_REMEMBERING = Memo.get_or_compute


def _forgetful(self: Memo[Any, Any], key: Any, compute: Any) -> Any:
    """`Memo.get_or_compute` that computes every answer afresh (the first is still kept, for
    `peek`): the run as it would be without reuse."""
    return compute() if key in self else _REMEMBERING(self, key, compute)


@pytest.mark.parametrize("seed", [26, 27])
def test_a_run_that_reuses_its_answers_says_what_a_run_that_reuses_none_says(
    corpus_repo: CorpusRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """True, false, respaced and misattributed quotes of six documents, each cited several times:
    the report (verdicts, reasons, near places, recovery attempts and their searches) is the same
    when every memo of the run computes afresh."""
    rng = random.Random(seed)
    docs = _documents(rng, 6)
    head = corpus_repo.commit(docs)
    build(corpus_repo.root, site=False)
    cited = _lines(docs)[:30]
    kinds = [rng.choice(["true", "false", "false", "respaced", "misattributed"]) for _ in cited]
    note = tmp_path / "note.md"
    note.write_text(_note(head, cited, kinds), encoding="utf-8")
    reused = _check(corpus_repo.root, note)
    monkeypatch.setattr(memo_module.Memo, "get_or_compute", _forgetful)
    assert _check(corpus_repo.root, note) == reused
    statuses = {r["quote_verdict"] for r in reused["records"]}
    assert {"matched", "failed", "wrong_ref"} <= statuses


def test_false_quotes_compact_each_cited_document_once_and_ask_its_version_once(
    corpus_repo: CorpusRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """24 false quotes citing six documents in turn: each document's text without spaces is made
    once (not once a quote), and the deep searches ask the index for the cited version once a document."""
    docs = _documents(random.Random(26), 6)
    head = corpus_repo.commit(docs)
    build(corpus_repo.root, site=False)
    cited = _lines(docs)[:24]
    note = tmp_path / "note.md"
    note.write_text(_note(head, cited, ["false"] * len(cited)), encoding="utf-8")
    compacted: list[str] = []
    real = quote_module._compact

    def counted(normalized: str) -> str:
        compacted.append(normalized)
        return real(normalized)

    monkeypatch.setattr(quote_module, "_compact", counted)
    statements: list[str] = []
    repo = GitRepo(corpus_repo.root)
    resolver = Resolver(repo)  # the run's own: its index reader's statements are traced
    reader = resolver.index()
    assert reader is not None
    reader.conn.set_trace_callback(statements.append)
    report = check_paths([note], repo, resolver=resolver)
    assert report.summary()["quote_failed"] == len(cited)
    assert len(compacted) == len(docs)
    version_asked = [s for s in statements if "FROM path_versions WHERE path = " in s and "first_seq <=" in s]
    # Five deep searches (the run's budget), of five documents: one question each.
    assert len(version_asked) <= 5
