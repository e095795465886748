"""The rendered Markdown view of this checkout against the baseline's, page by page, on a clone's HEAD.

Both checkouts' `indexer.site.markdown.markdown_view` render every Markdown file under `--root`
at HEAD of the clone `--repo`, each in a process of its own with its checkout's pincite, timed
over all pages (CPU of that process). Then each page is compared on what a reader and the
page's scripts see:

- its text (tags dropped, entities decoded, white space collapsed);
- its headings: level, id and title;
- its blocks' source lines (`data-line-start`/`data-line-end`, read by select-to-cite), with the
  blank lines at a block's end not counted.

A renderer change lists here every page it changes and how, so the differences are chosen, not
found later by a reader.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from bench.harness import ROOT, in_checkout, repository_name
from bench.scenarios import Result

BASELINE = True
BLOCK = re.compile(r'<(\w+)[^>]*?data-line-start="(\d+)" data-line-end="(\d+)"')
MARKDOWN = (".md", ".markdown")
# Run with each checkout's pincite: every page rendered, the pages to a file, the CPU time printed.
RENDER = """
import json, sys, time
from indexer.site.markdown import markdown_view
texts = json.loads(open(sys.argv[1], encoding="utf-8").read())
started = time.process_time()
pages = {path: markdown_view(text) for path, text in texts.items()}
cpu = time.process_time() - started
out = {path: [str(view), headings] for path, (view, headings) in pages.items()}
open(sys.argv[2], "w", encoding="utf-8").write(json.dumps(out, default=list))
print(json.dumps({"cpu_s": cpu}))
"""


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repo", type=Path, required=True, help="a clone whose HEAD is rendered")
    parser.add_argument("--root", default=".", help="the folder whose Markdown files are rendered")


def documents(repo: Path, root: str) -> dict[str, str]:
    listing = subprocess.run(
        ["git", "-C", str(repo), "ls-tree", "-r", "-z", "--name-only", "HEAD", "--", root],
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8")
    paths = [path for path in listing.split("\0") if path.lower().endswith(MARKDOWN)]
    texts = {}
    for path in paths:
        blob = subprocess.run(["git", "-C", str(repo), "show", f"HEAD:{path}"], capture_output=True, check=True)
        texts[path] = blob.stdout.decode("utf-8", errors="replace")
    return texts


def visible_text(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def blocks(page: str, lines: list[str]) -> list[tuple[str, int, int]]:
    found = []
    for tag, first, last in BLOCK.findall(page):
        start, end = int(first), int(last)
        while end > start and not lines[end - 1].strip(" >"):
            end -= 1
        found.append((tag, start, end))
    return found


def render(checkout: Path, texts_file: Path, out: Path) -> tuple[float, dict[str, Any]]:
    cpu = float(in_checkout(checkout, RENDER, str(texts_file), str(out))["cpu_s"])
    return cpu, json.loads(out.read_text(encoding="utf-8"))


def run(args: argparse.Namespace) -> Result:
    if args.baseline is None:
        raise SystemExit("markdown-view compares two checkouts: give --baseline CHECKOUT")
    texts = documents(args.repo, args.root)
    with tempfile.TemporaryDirectory(prefix="pincite-markdown-view-") as tmp:
        texts_file = Path(tmp) / "texts.json"
        texts_file.write_text(json.dumps(texts), encoding="utf-8")
        before_s, before = render(args.baseline.resolve(), texts_file, Path(tmp) / "baseline.json")
        after_s, after = render(ROOT, texts_file, Path(tmp) / "this.json")
    differences: dict[str, list[str]] = {}
    for path, text in texts.items():
        (old, old_headings), (new, new_headings) = before[path], after[path]
        lines = text.split("\n")
        kinds = []
        if visible_text(old) != visible_text(new):
            kinds.append("text")
        if old_headings != new_headings:
            kinds.append("headings")
        if blocks(old, lines) != blocks(new, lines):
            kinds.append("source lines")
        if kinds:
            differences[path] = kinds
    counts: dict[str, int] = {}
    for kinds in differences.values():
        for kind in kinds:
            counts[kind] = counts.get(kind, 0) + 1
    out = {
        "pages": len(texts),
        "baseline_cpu_s": round(before_s, 3),
        "cpu_s": round(after_s, 3),
        "ratio": round(after_s / before_s, 3) if before_s else None,
        "pages_that_differ": counts,
        "differences": differences,
    }
    text = (
        f"{out['pages']} Markdown pages of `{args.repo.name}` (`--root {args.root}`): "
        f"baseline {out['baseline_cpu_s']} s, this checkout {out['cpu_s']} s CPU ({out['ratio']}x); "
        "pages that differ, by what: "
        f"{out['pages_that_differ'] or 'none'}."
    )
    return Result(text, out, subject=repository_name(args.repo))
