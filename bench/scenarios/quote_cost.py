"""What a false quote costs `check`, against a true one, in one run on one corpus.

A CI run over a draft full of hallucinated quotes is exactly when checking must stay cheap, so
the goal is that a fabricated quote costs at most 1.5 times the CPU of a true one (and stays under
100 MiB). The run generates a synthetic corpus of 100 documents and 200 commits
of about 15 kB each (`bench/synth_corpus.py`; `--corpus sample` clones this repository for its sample corpus), builds
the index, and writes three notes of the same citations — each a line of a text document
at HEAD — that differ only in their quotes:

- `true`: the cited line itself (`matched`);
- `false`: the line's words in reverse order, which stand nowhere (`failed`: a fabrication);
- `misattributed`: a line of another document (`wrong_ref`: the words stand elsewhere).

Each note is checked in a process of its own (`check_paths`, a fresh resolver), which reports its
CPU (its own and its git processes') and its peak resident memory; each is checked `--runs` times,
the checkouts interleaved, and the least CPU time kept. The figures are ratios to the `true` note
of the same checkout in the same run.

    python -m bench quote-cost                  # 100 quotes of each kind
    python -m bench quote-cost --quotes 30
    python -m bench quote-cost --baseline ../main   # another checkout, same corpus, same run
"""

from __future__ import annotations

import argparse
import random
import resource
import subprocess
import tempfile
from pathlib import Path

from bench.harness import ROOT, Checkout, checkouts, commit_of, step
from bench.scenarios import Result
from tests.synth_corpus import SynthParams, generate

BASELINE = True
KINDS = ("true", "false", "misattributed")
TEXT_SUFFIXES = (".md", ".txt", ".rst", ".adoc")
MIN_WORDS = 6
MARKUP = set('`@|"[]*_“”')  # lines with these are left out: scan reads quotes and citations in them


def cited_lines(repo: Path, count: int, seed: int = 26) -> list[tuple[str, int, str]]:
    """(path, line number, line text) of `count` lines of at least MIN_WORDS words, at HEAD."""
    from indexer.vcs.repo import GitRepo

    git = GitRepo(repo)
    try:
        head = git.run_text("rev-parse", "HEAD").strip()
        paths = [p for p in git.run_text("ls-tree", "-r", "--name-only", head, "corpus").splitlines()]
        lines: list[tuple[str, int, str]] = []
        for path in sorted(p for p in paths if p.endswith(TEXT_SUFFIXES)):
            text = git.run("show", f"{head}:{path}").decode("utf-8", errors="replace")
            for number, line in enumerate(text.split("\n"), start=1):
                words = line.split()
                if len(words) >= MIN_WORDS and not set(line) & MARKUP:
                    lines.append((path, number, " ".join(words)))
    finally:
        git.close()
    return random.Random(seed).sample(lines, min(count, len(lines)))


def write_note(note: Path, head: str, lines: list[tuple[str, int, str]], kind: str) -> None:
    """A Markdown note citing every line, each with the quote of its kind."""
    from indexer.text.citation import Citation

    parts = []
    for n, (path, number, text) in enumerate(lines):
        if kind == "true":
            quote = text
        elif kind == "false":
            quote = " ".join(reversed(text.split()))
        else:  # a line of another document: the words stand, but not where cited
            quote = next(t for p, _, t in lines[n + 1 :] + lines[:n] if p != path)
        parts.append(f'- "{quote}" {Citation(head, path, lines=(number, number)).text_form()}\n')
    note.write_text("".join(parts), encoding="utf-8")


def check_once(repo: str, note: str) -> dict[str, float]:
    """Check one note in this process: CPU seconds (with git's), peak RSS in MiB, and the quote verdicts."""
    from indexer.citations.check import check_paths
    from indexer.vcs.repo import GitRepo

    before = _cpu()
    report = check_paths([Path(note)], GitRepo(repo))
    cpu = _cpu() - before  # the check alone: not the interpreter's start nor the imports
    summary = report.summary()
    return {
        "cpu": cpu,
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        **{k: float(v) for k, v in summary.items() if k.startswith("quote_")},
    }


def _cpu() -> float:
    """CPU seconds of this process and of the git processes it has waited for."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def make_corpus(repo: Path, corpus: str) -> None:
    """The corpus to measure on: this repository's sample corpus, or a synthetic one of 100 documents."""
    if corpus == "sample":
        subprocess.run(["git", "clone", "-q", str(ROOT), str(repo)], check=True)
    else:
        generate(repo, SynthParams(docs=100, commits=200, files_per_commit=2, target_bytes=1_500_000))


def measure(
    quotes: int = 100, corpus: str = "synth", sides: list[Checkout] | None = None, runs: int = 3
) -> dict[str, dict[str, dict[str, float]]]:
    """Make the corpus, build, and check the three notes with each checkout, each check in a fresh
    process, `runs` times interleaved: the least CPU time of each, per checkout and kind."""
    from indexer.api import build

    sides = sides or checkouts(None)
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        make_corpus(repo, corpus)
        build(repo, site=False)
        head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
        lines = cited_lines(repo, quotes)
        for kind in KINDS:
            write_note(Path(tmp) / f"{kind}.md", head.strip(), lines, kind)
        figures: dict[str, dict[str, dict[str, float]]] = {side.name: {} for side in sides}
        for _ in range(runs):
            for side in sides:
                for kind in KINDS:
                    note = Path(tmp) / f"{kind}.md"
                    result, measured = step(f"{__name__}:check_once", checkout=side.path, repo=repo, note=note)
                    best = figures[side.name].get(kind)
                    if best is None or result["cpu"] < best["cpu"]:
                        figures[side.name][kind] = {**result, "wall": measured.wall_s}
        return figures


def report(figures: dict[str, dict[str, dict[str, float]]], sides: list[Checkout]) -> str:
    rows = [
        "| checkout | quotes | CPU s | × true | peak MiB | wall s | matched / wrong_ref / failed |",
        "|---|---|---|---|---|---|---|",
    ]
    for side in sides:
        base = figures[side.name]["true"]
        label = f"{side.name} ({commit_of(side.path)})"
        for kind, f in figures[side.name].items():
            verdicts = f"{f['quote_matched']:.0f} / {f['quote_wrong_ref']:.0f} / {f['quote_failed']:.0f}"
            ratio = f["cpu"] / base["cpu"]
            rows.append(
                f"| {label} | {kind} | {f['cpu']:.2f} | {ratio:.2f} | {f['peak_mib']:.0f} | {f['wall']:.2f} "
                f"| {verdicts} |"
            )
    return "\n".join(rows)


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quotes", type=int, default=100)
    parser.add_argument("--corpus", choices=("synth", "sample"), default="synth")
    parser.add_argument("--runs", type=int, default=3, help="checks of each note per checkout (the least CPU kept)")


def run(args: argparse.Namespace) -> Result:
    sides = checkouts(args.baseline)
    figures = measure(args.quotes, args.corpus, sides, args.runs)
    return Result(report(figures, sides), figures)
