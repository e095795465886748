"""Site shape: files and bytes of a cold site by folder, per document, on many small pages in language folders.

The corpus has tldr-pages' shape in small: `--docs` Markdown pages of about 500 bytes in
`pages/` and `pages.<lang>/` folders of several sub-folders each, added in one commit, then
`--edits` commits that each edit one page. Each checkout builds it cold (`pincite build`); the
figures are the files and bytes under each top folder of the site, the home page's bytes, and the
site's bytes and files per published document version. Counts and bytes, not times.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import tempfile
from pathlib import Path

from bench.harness import checkout_env, checkouts, pincite
from bench.scenarios import Result

BASELINE = True
LANGUAGES = ("", "de", "fr", "es", "ru", "zh", "ja", "pt_BR", "it", "ko")
SUBFOLDERS = ("common", "linux", "osx", "windows")
WORDS = [
    "archive",
    "file",
    "list",
    "print",
    "copy",
    "move",
    "remove",
    "show",
    "create",
    "extract",
    "compress",
    "directory",
    "option",
    "value",
]


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--docs", type=int, default=3000)
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)


def corpus(folder: Path, docs: int, edits: int, seed: int) -> int:
    """The repository; the number of distinct document versions it publishes."""
    rng = random.Random(seed)
    git = ["git", "-C", str(folder), "-c", "user.name=bench", "-c", "user.email=bench@example.org"]
    folder.mkdir()
    subprocess.run([*git, "init", "-q"], check=True)
    paths = []
    for n in range(docs):
        language = LANGUAGES[n % len(LANGUAGES)]
        top = f"pages.{language}" if language else "pages"
        path = folder / "corpus" / top / SUBFOLDERS[(n // len(LANGUAGES)) % len(SUBFOLDERS)] / f"tool{n}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        words = " ".join(rng.choice(WORDS) for _ in range(60))
        path.write_text(f"# tool{n}\n\n> {words[:200]}\n\n- {words[200:]}:\n\n`tool{n} --option`\n")
        paths.append(path)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "pages"], check=True)
    for n in range(edits):
        path = paths[rng.randrange(len(paths))]
        path.write_text(path.read_text() + f"\n- edit {n}\n")
        subprocess.run([*git, "commit", "-q", "-am", f"edit {n}"], check=True)
    return docs + edits


def shape(site: Path) -> dict[str, tuple[int, int]]:
    """Files and bytes under each top folder of the site (files at the top as `(top)`)."""
    found: dict[str, tuple[int, int]] = {}
    for file in site.rglob("*"):
        if file.is_file():
            rel = file.relative_to(site).parts
            top = rel[0] if len(rel) > 1 else "(top)"
            count, size = found.get(top, (0, 0))
            found[top] = (count + 1, size + file.stat().st_size)
    return found


def run(args: argparse.Namespace) -> Result:
    rows = ["| checkout | folder | files | KB |", "|---|---|---|---|"]
    totals = [
        "| checkout | site KB | files | KB per version | files per version | home page KB |",
        "|---|---|---|---|---|---|",
    ]
    figures: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        versions = corpus(repo, args.docs, args.edits, args.seed)
        for checkout in checkouts(args.baseline):
            out = Path(tmp) / f"site-{checkout.name}"
            build = pincite("build", "--repo", str(repo), "--out", str(out))
            # From the checkout: `python -m` puts the working folder first on the path.
            subprocess.run(build, env=checkout_env(checkout.path), cwd=checkout.path, check=True, capture_output=True)
            folders = shape(out)
            files = sum(c for c, _ in folders.values())
            size = sum(b for _, b in folders.values())
            home = (out / "index.html").stat().st_size
            figures[checkout.name] = {"folders": folders, "files": files, "bytes": size, "home": home}
            for name in ("changes", "doc", "v", "folders", "pagefind", "history", "(top)"):
                count, total = folders.get(name, (0, 0))
                rows.append(f"| {checkout.name} | `{name}` | {count} | {total / 1000:.0f} |")
            totals.append(
                f"| {checkout.name} | {size / 1000:.0f} | {files} | {size / 1000 / versions:.1f} "
                f"| {files / versions:.2f} | {home / 1000:.1f} |"
            )
    lead = f"{args.docs} pages in {len(LANGUAGES)} language folders, {args.edits} edits: {versions} document versions."
    return Result(lead + "\n\n" + "\n".join(totals) + "\n\n" + "\n".join(rows), figures)
