"""Markdown chunking: pincite's `chunk` and the block parsers it could stand on, over one synthetic corpus.

Times, in CPU seconds (best of `--rounds`), over the Markdown documents at HEAD of a synthetic
corpus (tests/synth_corpus.py, fixed seed):

- markdown-it-py's block parse (inline rules off), which `chunk` used before;
- pyromark's events with source ranges, which `chunk` uses now;
- `indexer.text.chunk.chunk` as a whole (parse, block lines, grouping into passages).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.scenarios import Result
from tests.synth_corpus import SynthParams, generate


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)


def best_cpu(run: Callable[[str], object], texts: list[str], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.process_time()
        for text in texts:
            run(text)
        best = min(best, time.process_time() - started)
    return best


def run(args: argparse.Namespace) -> Result:
    import pyromark
    from markdown_it import MarkdownIt

    from indexer.text.chunk import chunk

    with tempfile.TemporaryDirectory(prefix="pincite-chunk-") as work:
        corpus = generate(Path(work) / "c", SynthParams(docs=args.docs, commits=0, target_bytes=args.docs * 5000))
        texts = [(corpus.root / path).read_text(encoding="utf-8") for path in corpus.paths]
    blocks_only = MarkdownIt("commonmark", {"html": False}).enable("table").disable(["inline", "text_join"])
    options = pyromark.Options.ENABLE_TABLES
    rows = {
        "markdown-it-py, block parse": best_cpu(blocks_only.parse, texts, args.rounds),
        "pyromark, events with ranges": best_cpu(
            lambda text: list(pyromark.events_with_range(text, options=options)), texts, args.rounds
        ),
        "pincite chunk() (pyromark)": best_cpu(
            lambda text: chunk(text, fmt="markdown", max_chars=1200), texts, args.rounds
        ),
    }
    size = sum(len(t) for t in texts) / 1e6
    lines = [
        f"{len(texts)} Markdown documents, {size:.1f} M code points; CPU seconds, best of {args.rounds}.",
        "",
        "| step | CPU s | ms per document |",
        "|---|---|---|",
        *[f"| {name} | {seconds:.3f} | {seconds * 1000 / len(texts):.3f} |" for name, seconds in rows.items()],
    ]
    return Result("\n".join(lines), {"documents": len(texts), "code_points_m": size, "cpu_s": rows})
