"""Markdown chunking: pincite's `chunk` and the block parsers it could stand on, over one corpus.

Times, in CPU seconds (best of `--rounds`), over the Markdown documents at HEAD of a synthetic
corpus (generated from a fixed seed, as `bench/build_bench.py` does):

- markdown-it-py's block parse (inline rules off), which `chunk` used before;
- pyromark's events with source ranges, which `chunk` uses now;
- `indexer.text.chunk.chunk` as a whole (parse, block lines, grouping into passages).

    python bench/chunk_bench.py                  # 1,000 documents
    python bench/chunk_bench.py --docs 2000 --rounds 5
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import pyromark  # noqa: E402
from markdown_it import MarkdownIt  # noqa: E402

from bench.synth_corpus import SynthParams, generate  # noqa: E402
from indexer.text.chunk import chunk  # noqa: E402


def best_cpu(run: Callable[[str], object], texts: list[str], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.process_time()
        for text in texts:
            run(text)
        best = min(best, time.process_time() - started)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
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
    print(f"{len(texts)} Markdown documents, {size:.1f} M code points; CPU seconds, best of {args.rounds}")
    print("| step | CPU s | ms per document |")
    print("|---|---|---|")
    for name, seconds in rows.items():
        print(f"| {name} | {seconds:.3f} | {seconds * 1000 / len(texts):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
