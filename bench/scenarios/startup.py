"""Start-up: whole-process time of `pincite --version`, `textconv FILE` and `search WORD`, against `python -c pass`.

`pincite search` runs on a corpus of a few documents indexed first (`build --no-site`), so its time
is the process's start and one query; the goal is at most 2× `pincite --version` (issue 28).

Each checkout's commands run with it on PYTHONPATH, interleaved with the bare interpreter so
that machine noise hits both alike: the median wall and CPU time of each (CPU: the process and
the git it starts; on a shared machine the steadier figure), its ratio to the bare interpreter,
and which heavy libraries the command imported (httpx, jinja2, pypdf, lxml, markdown_it,
GitPython, rapidfuzz). With --baseline, the other checkout is measured in the same run.
Each checkout's package is compiled to bytecode first, as an installed package is: a checkout run
with PYTHONDONTWRITEBYTECODE set would otherwise compile every module it imports, every run.
"""

from __future__ import annotations

import argparse
import compileall
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.harness import GIT_IDENTITY, checkout_env, checkouts, children_cpu, pincite
from bench.scenarios import Result

BASELINE = True
HEAVY = ("httpx", "jinja2", "pypdf", "lxml", "markdown_it", "git", "rapidfuzz")


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--runs", type=int, default=30)


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one run; CPU is user + system of the process and its children."""
    before, started = children_cpu(), time.perf_counter()
    subprocess.run(argv, env=env, check=True, capture_output=True, cwd=tempfile.gettempdir())
    return time.perf_counter() - started, children_cpu() - before


def heavy_imports(argv: list[str], env: dict[str, str]) -> list[str]:
    """The heavy libraries a command imported, read from `python -X importtime`."""
    command = [argv[0], "-X", "importtime", *argv[1:]]
    out = subprocess.run(command, env=env, check=False, capture_output=True, text=True, cwd=tempfile.gettempdir())
    loaded = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in out.stderr.splitlines() if "|" in line}
    return [name for name in HEAVY if name in loaded]


def small_corpus(folder: Path, env: dict[str, str]) -> Path:
    """A repository of three documents, indexed: what `pincite search` is timed on."""
    folder.mkdir()
    git = ["git", "-C", str(folder), *GIT_IDENTITY]
    subprocess.run([*git, "init", "-q"], check=True)
    (folder / "corpus").mkdir()
    for n in range(3):
        (folder / "corpus" / f"doc{n}.md").write_text(f"# Doc {n}\n\nRetention of records, part {n}.\n")
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "corpus"], check=True)
    subprocess.run(pincite("build", "--no-site", "--repo", str(folder)), env=env, check=True, capture_output=True)
    return folder


def run(args: argparse.Namespace) -> Result:
    rows = [
        "| checkout | command | median ms | × `python -c pass` | median CPU ms | heavy imports |",
        "|---|---|---|---|---|---|",
    ]
    figures: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        sample = Path(tmp) / "page.html"
        sample.write_text("<html><body><p>Hello</p></body></html>", encoding="utf-8")
        for checkout in checkouts(args.baseline):
            compileall.compile_dir(checkout.path / "indexer", quiet=1)
            env = checkout_env(checkout.path)
            corpus = small_corpus(Path(tmp) / f"corpus-{checkout.name}", env)
            commands = {
                "--version": pincite("--version"),
                "textconv FILE": pincite("textconv", str(sample)),
                "search WORD": pincite("search", "retention", "--repo", str(corpus)),
            }
            base: list[tuple[float, float]] = []
            samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
            for _ in range(args.runs):
                base.append(timed([sys.executable, "-c", "pass"], env))
                for name, argv in commands.items():
                    samples[name].append(timed(argv, env))
            floor = statistics.median(wall for wall, _cpu in base)
            floor_cpu = statistics.median(cpu for _wall, cpu in base)
            figures[checkout.name] = {"python -c pass": floor, "python -c pass cpu": floor_cpu}
            for name, values in samples.items():
                heavy = ", ".join(heavy_imports(commands[name], env)) or "none"
                median = statistics.median(wall for wall, _cpu in values)
                cpu = statistics.median(cpu for _wall, cpu in values)
                figures[checkout.name] |= {name: median, f"{name} cpu": cpu}
                rows.append(
                    f"| {checkout.name} | `pincite {name}` | {median * 1000:.0f} | {median / floor:.1f} |"
                    f" {cpu * 1000:.0f} | {heavy} |"
                )
            rows.append(
                f"| {checkout.name} | `python -c pass` | {floor * 1000:.0f} | 1.0 | {floor_cpu * 1000:.0f} | — |"
            )
    ratios = [
        f"{name}: `pincite search` is {values['search WORD'] / values['--version']:.2f}× `pincite --version`"
        f" ({values['search WORD cpu'] / values['--version cpu']:.2f}× by CPU)"
        for name, values in figures.items()
    ]
    text = f"Median of {args.runs} runs of each, interleaved.\n\n" + "\n".join(rows) + "\n\n" + "; ".join(ratios) + "."
    return Result(text, figures)
