"""The corpus a site scenario builds: an existing clone (`--repo`), or a synthetic corpus of a given size."""

from __future__ import annotations

import argparse
import shutil
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench.harness import log
from tests.synth_corpus import SynthParams, generate


def add_corpus_arguments(parser: argparse.ArgumentParser) -> None:
    """The options `corpus` reads: an existing clone, or the synthetic corpus's size and seed."""
    parser.add_argument("--repo", help="measure an existing clone instead of the synthetic corpus")
    parser.add_argument("--docs", type=int, default=2000, help="synthetic documents (about 5 kB each)")
    parser.add_argument("--commits", type=int, help="edit commits of 3 files (default: --docs, ~4 versions each)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--roots", nargs="+", default=["corpus"], help="folders both sides publish (pincite's roots, MkDocs' docs)"
    )


def corpus(args: argparse.Namespace, work: Path) -> tuple[Path, dict[str, Any]]:
    """The repository to measure, and how to describe it; a synthetic one is made under `work` once."""
    if args.repo:
        return Path(args.repo).resolve(), {"repo": Path(args.repo).name}
    params = SynthParams(
        docs=args.docs,
        commits=args.commits if args.commits is not None else args.docs,
        files_per_commit=3,
        seed=args.seed,
        target_bytes=args.docs * 5000,
    )
    repo = work / f"synth-{params.docs}-{params.commits}-{params.seed}"
    if not (repo / ".git").is_dir():
        shutil.rmtree(repo, ignore_errors=True)
        log(f"generating {params.docs} documents, {params.commits} commits in {repo} ...")
        generate(repo, params)
    return repo, {"synthetic": asdict(params)}


def heading_words(root: Path, paths: list[str], documents: int) -> list[str]:
    """The longer words of the headings of `documents` documents spread over the corpus, in order."""
    words: list[str] = []
    for path in paths[:: max(1, len(paths) // (documents + 1))][:documents]:
        heading = (root / path).read_text(encoding="utf-8").splitlines()[0]
        words += [w for w in heading.lstrip("# ").lower().split() if len(w) > 4]
    return words
