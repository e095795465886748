"""The rendered Markdown view of this checkout against another's, page by page, on a clone's HEAD.

Both checkouts' `indexer.site.markdown.markdown_view` render every Markdown file under `--root`
at HEAD, in this one process (the baseline is imported under another module name), first the
baseline, then this checkout, each timed over all pages (CPU of this process). Then each page is
compared on what a reader and the page's scripts see:

- its text (tags dropped, entities decoded, white space collapsed);
- its headings: level, id and title;
- its blocks' source lines (`data-line-start`/`data-line-end`, read by select-to-cite), with the
  blank lines at a block's end not counted.

A renderer change lists here every page it changes and how, so the differences are chosen, not
found later by a reader.

    python bench/markdown_view_compare.py --baseline /tmp/pincite-main --repo ~/src/some-clone --root docs
"""

from __future__ import annotations

import argparse
import html
import importlib.util
import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from indexer.site import markdown as current  # noqa: E402

BLOCK = re.compile(r'<(\w+)[^>]*?data-line-start="(\d+)" data-line-end="(\d+)"')
MARKDOWN = (".md", ".markdown")


def baseline_module(checkout: Path) -> Any:
    spec = importlib.util.spec_from_file_location("baseline_markdown", checkout / "indexer/site/markdown.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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


def timed(render: Any, texts: dict[str, str]) -> tuple[float, dict[str, tuple[str, Any]]]:
    started = time.process_time()
    pages = {path: render(text) for path, text in texts.items()}
    return time.process_time() - started, {path: (str(view), headings) for path, (view, headings) in pages.items()}


def run(args: argparse.Namespace) -> dict[str, Any]:
    texts = documents(Path(args.repo), args.root)
    before_s, before = timed(baseline_module(Path(args.baseline)).markdown_view, texts)
    after_s, after = timed(current.markdown_view, texts)
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
    return {
        "pages": len(texts),
        "baseline_cpu_s": round(before_s, 3),
        "cpu_s": round(after_s, 3),
        "ratio": round(after_s / before_s, 3) if before_s else None,
        "pages_that_differ": counts,
        "differences": differences,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="another pincite checkout")
    parser.add_argument("--repo", required=True, help="a clone whose HEAD is rendered")
    parser.add_argument("--root", default=".", help="the folder whose Markdown files are rendered")
    parser.add_argument("--json", action="store_true", help="print every figure and every differing page")
    args = parser.parse_args(argv)
    out = run(args)
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print(
            f"{out['pages']} pages: baseline {out['baseline_cpu_s']} s, this checkout {out['cpu_s']} s"
            f" ({out['ratio']}x); pages that differ, by what: {out['pages_that_differ'] or 'none'}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
