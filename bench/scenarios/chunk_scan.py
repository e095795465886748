"""Markdown chunking of texts within one passage: the heading scan against the parse, on real clones.

Every `.md` blob at HEAD of each `--repo` (read through one `git cat-file --batch`, decoded as
the build decodes a text) is cut by `indexer.text.chunk` at each of `--bounds`, once by the
chunker as the build runs it (a plain text within one passage has its headings found by a line
scan) and once with the scan off (every heading from pyromark's parse). The passages must be
equal, every field; the scenario counts the texts, those within one passage, those the scan
took, and the unequal ones (it exits non-zero when there is one). Then CPU seconds (best of
`--rounds`) of both ways over the texts within one passage at the first bound.

    python -m bench chunk-scan --repo /work/real/tldr --repo /work/real/rfcs
"""

from __future__ import annotations

import argparse
import subprocess
import time
from pathlib import Path
from typing import Any

from bench.scenarios import Result


def markdown_texts(repo: Path) -> list[tuple[str, str]]:
    """(path, text) of every `.md` blob at HEAD of `repo`, as the build decodes it (UTF-8, no BOM)."""
    from indexer.errors import ExtractionError
    from indexer.text.model import decode_text_blob

    listing = subprocess.run(
        ["git", "-c", "core.quotepath=false", "ls-tree", "-r", "-z", "HEAD"], cwd=repo, capture_output=True, check=True
    ).stdout
    entries = [rec.split(b"\t", 1) for rec in listing.split(b"\0") if rec]
    wanted = [(meta.split()[2], path.decode()) for meta, path in entries if path.endswith(b".md")]
    batch = subprocess.run(
        ["git", "cat-file", "--batch"],
        cwd=repo,
        input=b"".join(oid + b"\n" for oid, _ in wanted),
        capture_output=True,
        check=True,
    ).stdout
    texts: list[tuple[str, str]] = []
    at = 0
    for _oid, path in wanted:
        header_end = batch.index(b"\n", at)
        size = int(batch[at:header_end].split()[2])
        data = batch[header_end + 1 : header_end + 1 + size]
        at = header_end + 1 + size + 1
        try:
            texts.append((path, decode_text_blob(data, path)))
        except ExtractionError:
            continue  # not text: the build indexes none of it either
    return texts


def compare(texts: list[tuple[str, str]], bound: int) -> dict[str, Any]:
    from indexer.text.chunk import _chunk, _plain_markdown_headings

    within = scanned = unequal = 0
    examples: list[str] = []
    for path, text in texts:
        if len(text) <= bound:
            within += 1
            scanned += _plain_markdown_headings(text) is not None
        if _chunk(text, "markdown", bound, (), scan=True) != _chunk(text, "markdown", bound, (), scan=False):
            unequal += 1
            examples.append(path)
    return {"bound": bound, "within": within, "scanned": scanned, "unequal": unequal, "examples": examples[:5]}


def best_cpu(texts: list[str], bound: int, scan: bool, rounds: int) -> float:
    from indexer.text.chunk import _chunk

    best = float("inf")
    for _ in range(rounds):
        started = time.process_time()
        for text in texts:
            _chunk(text, "markdown", bound, (), scan=scan)
        best = min(best, time.process_time() - started)
    return best


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repo", action="append", required=True, help="a clone (read, never written); repeatable")
    parser.add_argument("--bounds", default="1200,600,200,40", help="comma-separated passage sizes")
    parser.add_argument("--rounds", type=int, default=3)


def run(args: argparse.Namespace) -> Result:
    bounds = [int(b) for b in args.bounds.split(",")]
    lines = [
        "| repository | .md texts | bound | within one passage | scanned | unequal passages |",
        "|---|---|---|---|---|---|",
    ]
    figures: dict[str, Any] = {}
    all_texts: list[str] = []
    for repo in args.repo:
        texts = markdown_texts(Path(repo))
        all_texts += [text for _, text in texts]
        rows = [compare(texts, bound) for bound in bounds]
        figures[repo] = {"texts": len(texts), "bounds": rows}
        for row in rows:
            lines.append(
                f"| {Path(repo).name} | {len(texts):,} | {row['bound']} | {row['within']:,} | {row['scanned']:,} "
                f"| {row['unequal']}{' (' + ', '.join(row['examples']) + ')' if row['examples'] else ''} |"
            )
    small = [text for text in all_texts if len(text) <= bounds[0]]
    parse_s = best_cpu(small, bounds[0], False, args.rounds)
    scan_s = best_cpu(small, bounds[0], True, args.rounds)
    figures["cpu"] = {"texts": len(small), "bound": bounds[0], "parse_s": parse_s, "scan_s": scan_s}
    lines += [
        "",
        f"CPU over the {len(small):,} texts within one passage of {bounds[0]} characters, best of {args.rounds}: "
        f"parse {parse_s:.3f} s, scan {scan_s:.3f} s ({scan_s / parse_s:.2f}×).",
    ]
    if any(row["unequal"] for repo in args.repo for row in figures[repo]["bounds"]):
        print("\n".join(lines))
        raise SystemExit("chunk-scan: the scan's passages differ from the parse's")
    return Result("\n".join(lines), figures)
