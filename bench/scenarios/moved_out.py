"""Documents moved out of the roots: the cold build and a one-file build, by this checkout and the baseline.

A generated repository holds `--docs` Markdown documents under `corpus/`; after `--edits`
commits that edit them, one commit moves the folder to `old/corpus/` (out of the roots, `corpus`
keeps one document), and `--later` commits edit the moved documents. Every document's history
then ends in a rename out of the roots, which the site follows through git's log (as rust-lang/book
moved `src/` to `second-edition/src/`). Each checkout builds its own copy (index and site) cold,
then once more after a commit that changes one document; each build runs in a fresh process with
its checkout's pincite.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from bench.harness import GIT_IDENTITY_ENV, checkout_env, checkouts, measure, pincite
from bench.scenarios import Result

BASELINE = True


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, env={**os.environ, **GIT_IDENTITY_ENV}, check=True, capture_output=True)


def make_repository(repo: Path, docs: int, edits: int, later: int) -> None:
    rng = random.Random(1)
    corpus = repo / "corpus"
    corpus.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    for n in range(docs):
        lines = "".join(f"Line {k} of document {n}, with a few words.\n" for k in range(30))
        (corpus / f"doc-{n:05d}.md").write_text(f"# Document {n}\n\n{lines}", encoding="utf-8")
    (corpus / "keep.md").write_text("# Kept in the roots\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "documents")
    for n in range(edits):
        with (corpus / f"doc-{rng.randrange(docs):05d}.md").open("a", encoding="utf-8") as f:
            f.write(f"Edit {n}.\n")
        git(repo, "commit", "-qam", f"edit {n}")
    (repo / "old").mkdir()
    git(repo, "mv", "corpus", "old/corpus")
    corpus.mkdir()
    git(repo, "mv", "old/corpus/keep.md", "corpus/keep.md")
    git(repo, "commit", "-qm", "move the documents out of corpus/")
    for n in range(later):
        with (repo / "old" / "corpus" / f"doc-{rng.randrange(docs):05d}.md").open("a", encoding="utf-8") as f:
            f.write(f"Later edit {n}.\n")
        git(repo, "commit", "-qam", f"later edit {n}")


def timed_build(checkout: Path, work: Path) -> dict[str, Any]:
    settings = {"PINCITE_ROOTS": "corpus", "PINCITE_INDEX_PATH": str(work / "index.sqlite")}
    env = checkout_env(checkout, **settings, PINCITE_SITE_DIR=str(work / "site"))
    run = measure(pincite("build", "--json"), cwd=work / "repo", env=env)
    site = run.json().get("site") or {}
    kept = {k: site.get(k) for k in ("pages_rendered", "pages_reused", "history_written", "history_reused")}
    return {"seconds": round(run.wall_s, 2), "cpu_seconds": round(run.cpu_s, 2), **kept}


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--docs", type=int, default=3000)
    parser.add_argument("--edits", type=int, default=50, help="commits before the move")
    parser.add_argument("--later", type=int, default=200, help="commits after the move")
    parser.add_argument("--work", type=Path, help="keep the repository and the builds here (reused)")


def run(args: argparse.Namespace) -> Result:
    with tempfile.TemporaryDirectory(prefix="pincite-moved-out-") as tmp:
        work_root = args.work or Path(tmp)
        source = work_root / "source"
        if not source.is_dir():
            make_repository(source, args.docs, args.edits, args.later)
        results: dict[str, Any] = {"docs": args.docs, "edits": args.edits, "later": args.later}
        for side in checkouts(args.baseline):
            work = work_root / side.name
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir(parents=True)
            shutil.copytree(source, work / "repo", symlinks=True)
            cold = timed_build(side.path, work)
            with (work / "repo" / "corpus" / "keep.md").open("a", encoding="utf-8") as f:
                f.write("One more line.\n")
            git(work / "repo", "commit", "-qam", "one file")
            results[side.name] = {"cold": cold, "one_file": timed_build(side.path, work)}
    lines = [
        f"{args.docs:,} documents, {args.edits} edit commits, the move, then {args.later} edit commits of the "
        "moved documents.",
        "",
        "| checkout | build | wall | CPU | pages rendered | reused | history files written | reused |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for side in checkouts(args.baseline):
        for label, key in (("cold", "cold"), ("one file", "one_file")):
            r = results[side.name][key]
            lines.append(
                f"| {side.name} | {label} | {r['seconds']} s | {r['cpu_seconds']} s | {r['pages_rendered']} "
                f"| {r['pages_reused']} | {r['history_written']} | {r['history_reused']} |"
            )
    return Result("\n".join(lines), results)
