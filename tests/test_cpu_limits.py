"""Every time limit on one document's work counts the CPU the work used, not the time on the clock.

On a loaded machine work that waits for a core takes longer on the clock and the same CPU, so
whether a document is indexed or rendered must not change with the load. Each limit keeps a
much larger wall-clock backstop against work that hangs without using CPU; what that stops is
not remembered, so the next build tries again. No assertion here is about how long anything
took: the work either waits (no CPU) or spins (CPU), and the test asserts which limit, if any,
stopped it.
"""

from __future__ import annotations

import multiprocessing
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CorpusRepo, count_pools
from extract_samples import ARTICLE, html_page, pdf_with_heavy_page

from indexer import build
from indexer.config import load_config
from indexer.errors import CpuLimitExceeded, ExtractionError, ExtractionHung
from indexer.extract import base
from indexer.extract import html as html_extractor
from indexer.index import prepare as prepare_mod
from indexer.index.prepare import NotThisTime, prepare
from indexer.site import asciidoc_view, budget, pages

PAGE = html_page(ARTICLE)


def _spin() -> None:
    while True:
        pass


def _in_a_worker(behaviour: str, root: Path, conn: object) -> None:
    """Run in a real child process: extract the page under the repository's settings, the HTML
    parser replaced by work that waits (`sleep`), spins (`spin`) or hangs (`hang`)."""
    real = html_extractor._main_text

    def work(markup: str, path: str) -> tuple[str, str, bool]:
        if behaviour == "sleep":
            time.sleep(1.0)  # wall time, no CPU: five times the CPU limit
        elif behaviour == "spin":
            _spin()
        elif behaviour == "hang":
            time.sleep(60)  # blocked, as on a pipe that never answers
        return real(markup, path)

    html_extractor._main_text = work  # type: ignore[assignment]
    if behaviour == "hang":  # a backstop short enough for a test: the floor and the factor come down
        base.WALL_FLOOR_SECONDS, base.WALL_FACTOR = 0.5, 1.0
    config = load_config(root)
    result = prepare(config, PAGE, "corpus/page.html", html_extractor.HtmlExtractor().identity())
    conn.send(result if isinstance(result, str | NotThisTime) else ("ok", result[0].text))  # type: ignore[attr-defined]


def _prepared_in_a_worker(tmp_path: Path, behaviour: str) -> object:
    (tmp_path / "pincite.toml").write_text("extract_timeout_seconds = 0.2\n", encoding="utf-8")
    context = multiprocessing.get_context("fork")  # the child keeps the replaced parser
    parent, child = context.Pipe()
    worker = context.Process(target=_in_a_worker, args=(behaviour, tmp_path, child))
    worker.start()
    try:
        assert parent.poll(120), "the worker gave no answer"
        return parent.recv()
    finally:
        worker.join(10)
        if worker.is_alive():
            worker.kill()


def test_an_extraction_that_waits_past_its_cpu_limit_is_not_stopped(tmp_path: Path) -> None:
    answer = _prepared_in_a_worker(tmp_path, "sleep")
    assert isinstance(answer, tuple) and answer[0] == "ok" and answer[1].strip(), answer


def test_an_extraction_that_spins_is_stopped_by_its_cpu_limit(tmp_path: Path) -> None:
    answer = _prepared_in_a_worker(tmp_path, "spin")
    assert answer == "extraction used more than 0.2 s of CPU (extract_timeout_seconds)"


def test_an_extraction_that_hangs_meets_the_backstop_and_is_not_remembered(tmp_path: Path) -> None:
    answer = _prepared_in_a_worker(tmp_path, "hang")
    assert isinstance(answer, NotThisTime), answer
    assert "stopped as hung" in answer.reason and "backstop of extract_timeout_seconds" in answer.reason


def test_the_backstop_is_far_above_the_cpu_limit() -> None:
    # Load 19 on 2 cores leaves a process about a tenth of a core: the backstop must not stop that.
    assert base.wall_backstop(60.0) >= 20 * 60.0
    assert base.wall_backstop(0.1) == base.WALL_FLOOR_SECONDS


def test_waiting_uses_none_of_the_limit_and_spinning_all_of_it() -> None:
    with base.cpu_limit(0.2, "x.pdf") as spent:
        time.sleep(0.5)
        spent.check()  # waiting used no CPU: no error
    stopped = pytest.raises(CpuLimitExceeded, match=r"x.pdf: extraction used more than 0.05 s of CPU")
    with stopped, base.cpu_limit(0.05, "x.pdf"):
        _spin()


# -- a build remembers a CPU failure, not a hang ---------------------------------------------


def _failing_extraction(error: ExtractionError) -> Callable[..., object]:
    """`extract_and_chunk` with the page's extraction failing with `error` (the Markdown is read)."""
    real = prepare_mod.extract_and_chunk

    def fail(config: object, data: bytes, path: str, identity: str) -> object:
        if path.endswith(".html"):
            raise error
        return real(config, data, path, identity)  # type: ignore[arg-type]

    return fail


@pytest.mark.parametrize(
    ("error", "remembered"),
    [
        (CpuLimitExceeded("corpus/page.html: extraction used more than 60 s of CPU (extract_timeout_seconds)"), True),
        (ExtractionHung("corpus/page.html: extraction was stopped as hung"), False),
    ],
)
def test_a_build_remembers_a_cpu_failure_but_retries_a_hang(
    corpus_repo: CorpusRepo, monkeypatch: pytest.MonkeyPatch, error: ExtractionError, remembered: bool
) -> None:
    corpus_repo.commit({"corpus/page.html": PAGE, "corpus/a.md": "# A\n\nText.\n"})
    with monkeypatch.context() as patched:
        patched.setattr(prepare_mod, "extract_and_chunk", _failing_extraction(error))
        first = build(corpus_repo.root, site=False)
    assert [s.path for s in first.skipped] == ["corpus/page.html"]
    assert first.skipped[0].reason == error.reason_for("corpus/page.html")
    again = build(corpus_repo.root, site=False)
    if remembered:  # the same bytes under the same limit: not extracted again
        assert [s.path for s in again.skipped] == ["corpus/page.html"] and again.extracted == 0
        assert again.failures_reused == 1
    else:  # the hang said nothing about the bytes: this build extracts and indexes it
        assert again.skipped == [] and again.extracted == 1


# -- the render budget ---------------------------------------------------------------------


def test_a_rendering_that_waits_past_the_render_budget_is_not_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "RENDER_SECONDS", 0.05)

    def slow() -> str:
        time.sleep(0.5)
        return "view"

    assert budget.within_budget("rst", "corpus/x.rst", "x", slow).value == "view"


def test_a_rendering_that_hangs_meets_the_backstop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "RENDER_SECONDS", 0.05)
    monkeypatch.setattr(base, "WALL_FLOOR_SECONDS", 0.3)

    def hang() -> None:
        time.sleep(60)

    made = budget.within_budget("rst", "corpus/x.rst", "x", hang)
    assert made.value is None and made.refused is not None and "stopped as hung" in made.refused


# -- child programs (Tesseract): the kernel's CPU limit --------------------------------------


def test_a_child_that_spins_is_stopped_by_its_cpu_limit() -> None:
    out = base.run_with_cpu_limit([sys.executable, "-c", "while True: pass"], b"", 1.0, {})
    assert out.over_cpu_limit
    assert out.cpu_seconds > 0.5  # what the kernel let it use (1 s) is what a budget is charged


def test_a_child_that_waits_past_its_cpu_limit_finishes() -> None:
    out = base.run_with_cpu_limit([sys.executable, "-c", "import time; time.sleep(2); print('done')"], b"", 1.0, {})
    assert out.returncode == 0 and out.stdout.strip() == b"done" and not out.over_cpu_limit


def test_a_page_whose_rendering_hung_is_rendered_again_by_the_next_build(
    corpus_repo: CorpusRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus_repo.commit({"corpus/a.md": "# A\n\nSome *words*.\n", "corpus/b.md": "# B\n\nOther words.\n"})
    site = tmp_path / "site"
    real = pages.markdown_view

    def hangs_on_a(text: str, links: object) -> object:
        if text.startswith("# A"):
            time.sleep(60)  # waits, using no CPU, as on a pipe that never answers
        return real(text, links)  # type: ignore[arg-type]

    with monkeypatch.context() as patched:
        patched.setattr(pages, "markdown_view", hangs_on_a)
        patched.setattr(budget, "RENDER_SECONDS", 0.5)  # a backstop of 0.5 s: the floor and factor come down
        patched.setattr(base, "WALL_FLOOR_SECONDS", 0.3)
        patched.setattr(base, "WALL_FACTOR", 1.0)
        first = build(corpus_repo.root, out=site)
    shown = {entry["path"]: entry["reason"] for entry in (first.site or {})["shown_as_source"]}
    assert list(shown) == ["corpus/a.md"] and "stopped as hung" in shown["corpus/a.md"]
    again = build(corpus_repo.root, out=site)
    assert (again.site or {})["shown_as_source"] == []
    assert "class=rendered-body>" in (site / "doc/corpus/a.md.html").read_text(encoding="utf-8")


@pytest.mark.skipif(not asciidoc_view.available(), reason="Asciidoctor is not installed")
def test_asciidoctor_is_stopped_by_its_own_cpu_limit_and_converts_the_next_document(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The title stalls Asciidoctor itself (a line scan of 200 KB of spaces): its Ruby process
    # spins while this one waits on the pipe using no CPU, so only Ruby's own limit can stop it.
    monkeypatch.setattr(budget, "RENDER_SECONDS", 1.0)
    stall = "= x" + " " * 200_000 + "y\n"
    made = budget.within_budget("asciidoc", "corpus/title.adoc", stall, lambda: asciidoc_view.asciidoc_view(stall))
    assert made.value is None and made.refused == "rendering used more than 1 s of CPU"
    view = asciidoc_view.asciidoc_view("= Title\n\nHello *world*.\n")
    assert view is not None and "<strong>world</strong>" in view[0]


def test_a_build_worker_process_stops_an_extraction_by_its_cpu(
    corpus_repo: CorpusRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The pool's workers are fresh processes (forkserver): the limit reaches them through the
    # repository's settings, and the PDF's own parsing (about a second of CPU) meets it.
    corpus_repo.commit(
        {
            "corpus/heavy.pdf": pdf_with_heavy_page(20_000),
            "corpus/a.md": "# A\n\nText.\n",
            "pincite.toml": "extract_timeout_seconds = 0.2\n",
        }
    )
    pools = count_pools(monkeypatch)
    summary = build(corpus_repo.root, site=False)
    assert pools == [2]
    assert [(s.path, s.reason) for s in summary.skipped] == [
        ("corpus/heavy.pdf", "extraction used more than 0.2 s of CPU (extract_timeout_seconds)")
    ]
