"""Whole-process start-up time of `pincite --version` and `pincite textconv FILE`, against `python -c pass`.

    python bench/startup_bench.py [--runs 30] [CHECKOUT ...]

Each CHECKOUT (default: this one) is a pincite source tree; its commands run with it first on
PYTHONPATH, interleaved with the baseline so that machine noise hits both alike. Prints the
median wall time of each and its ratio to the bare interpreter, and which heavy libraries the
command imported (httpx, jinja2, pypdf, lxml, markdown_it).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEAVY = ("httpx", "jinja2", "pypdf", "lxml", "markdown_it")
ROOT = Path(__file__).resolve().parent.parent


def timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, env=env, check=True, capture_output=True, cwd=tempfile.gettempdir())
    return time.perf_counter() - started


def heavy_imports(argv: list[str], env: dict[str, str]) -> list[str]:
    """The heavy libraries a command imported, read from `python -X importtime`."""
    command = [argv[0], "-X", "importtime", *argv[1:]]
    out = subprocess.run(command, env=env, check=False, capture_output=True, text=True, cwd=tempfile.gettempdir())
    loaded = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in out.stderr.splitlines() if "|" in line}
    return [name for name in HEAVY if name in loaded]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkouts", nargs="*", type=Path, default=[ROOT])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        sample = Path(tmp) / "page.html"
        sample.write_text("<html><body><p>Hello</p></body></html>", encoding="utf-8")
        print(f"runs: {args.runs}; python {sys.version.split()[0]}")
        print("| checkout | command | median ms | × `python -c pass` | heavy imports |")
        print("|---|---|---|---|---|")
        for checkout in args.checkouts:
            env = {**os.environ, "PYTHONPATH": str(checkout.resolve())}
            module = "indexer.cli.main" if (checkout / "indexer" / "cli" / "main.py").exists() else "indexer.cli"
            commands = {
                "--version": [sys.executable, "-m", module, "--version"],
                "textconv FILE": [sys.executable, "-m", module, "textconv", str(sample)],
            }
            base: list[float] = []
            samples: dict[str, list[float]] = {name: [] for name in commands}
            for _ in range(args.runs):
                base.append(timed([sys.executable, "-c", "pass"], env))
                for name, argv in commands.items():
                    samples[name].append(timed(argv, env))
            floor = statistics.median(base)
            for name, values in samples.items():
                heavy = ", ".join(heavy_imports(commands[name], env)) or "none"
                median = statistics.median(values)
                print(f"| {checkout.name} | `pincite {name}` | {median * 1000:.0f} | {median / floor:.1f} | {heavy} |")
            print(f"| {checkout.name} | `python -c pass` | {floor * 1000:.0f} | 1.0 | — |")


if __name__ == "__main__":
    main()
