"""Text formats: indexing reStructuredText documents against the same corpus as Markdown and as plain text.

The same generated content (fixed seed) is written three ways, each committed to its own
repository: Markdown (`#` headings, fenced code), reStructuredText (underlined titles,
literal blocks after `::`, a `note` directive) and plain text (the floor: paragraphs only,
no structure to read). Each is indexed from scratch (`build(site=False)`), alternating the
order, best of several rounds. Reported: seconds per format and each structured format's
ratio to the plain floor.

Target: reST's ratio to the floor is no more than Markdown's (x 1.1 for noise).
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from bench.harness import GIT_IDENTITY, alternate
from bench.scenarios import Result

WORDS = [
    "record",
    "policy",
    "retention",
    "office",
    "archive",
    "travel",
    "member",
    "board",
    "budget",
    "review",
    "notice",
    "vote",
]


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(6, 16))]
    return " ".join(words).capitalize() + "."


def _paragraph(rng: random.Random) -> str:
    return "\n".join(_sentence(rng) for _ in range(rng.randint(2, 5)))


def document(rng: random.Random, fmt: str) -> str:
    parts: list[str] = []
    for section in range(rng.randint(3, 6)):
        title = f"Section {section} {rng.choice(WORDS)}"
        if fmt == "md":
            parts.append(f"## {title}")
        elif fmt == "rst":
            parts.append(f"{title}\n{'-' * len(title)}")
        else:
            parts.append(title)
        for _ in range(rng.randint(2, 4)):
            parts.append(_paragraph(rng))
        code = "total = sum(records)\nprint(total)"
        if fmt == "md":
            parts.append(f"```\n{code}\n```")
        elif fmt == "rst":
            parts.append("Example::\n\n" + "\n".join("    " + line for line in code.splitlines()))
            parts.append(".. note::\n\n   " + _sentence(rng))
        else:
            parts.append(code)
    return "\n\n".join(parts) + "\n"


def make_repo(root: Path, fmt: str, docs: int) -> None:
    rng = random.Random(15)  # the same content for every format
    suffix = {"md": ".md", "rst": ".rst", "txt": ".txt"}[fmt]
    for i in range(docs):
        target = root / "corpus" / f"folder{i % 20}" / f"doc{i:05d}{suffix}"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(document(rng, fmt), encoding="utf-8")
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(["git", *GIT_IDENTITY, "-C", str(root), "commit", "-q", "-m", "corpus"], check=True)


def time_build(root: Path) -> float:
    from indexer.api import build

    shutil.rmtree(root / ".pincite", ignore_errors=True)
    started = time.perf_counter()
    summary = build(root, site=False)
    elapsed = time.perf_counter() - started
    assert summary.documents > 0 and not summary.skipped, summary.skipped[:3]
    return elapsed


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)


def run(args: argparse.Namespace) -> Result:
    formats = ["txt", "md", "rst"]
    with tempfile.TemporaryDirectory(prefix="pincite-formats-") as tmp:
        repos = {fmt: Path(tmp, fmt) for fmt in formats}
        for fmt, root in repos.items():
            make_repo(root, fmt, args.docs)
        best = {fmt: float("inf") for fmt in formats}
        for _, order in alternate(formats, args.rounds):
            for fmt in order:
                best[fmt] = min(best[fmt], time_build(repos[fmt]))
    floor = best["txt"]
    md_ratio, rst_ratio = best["md"] / floor, best["rst"] / floor
    met = "met" if rst_ratio <= md_ratio * 1.1 else "**missed**"
    names = {"txt": "plain text (the floor)", "md": "Markdown", "rst": "reStructuredText"}
    lines = [
        f"{args.docs} documents of the same content in each format, `build(site=False)` from scratch, "
        f"best of {args.rounds} rounds.",
        "",
        "| format | seconds | ratio to the plain floor |",
        "|---|---|---|",
        *[f"| {names[fmt]} | {best[fmt]:.2f} | {best[fmt] / floor:.2f} |" for fmt in formats],
        "",
        f"Target, reST's ratio {rst_ratio:.2f} <= Markdown's {md_ratio:.2f} x 1.1: {met}.",
    ]
    return Result("\n".join(lines), {"docs": args.docs, "rounds": args.rounds, "seconds": best})
