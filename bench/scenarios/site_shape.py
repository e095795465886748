"""Site shape: files and bytes of a cold site by folder, per document, on many small pages in language folders.

The corpus has tldr-pages' shape in small: `--docs` Markdown pages of about 500 bytes in
`pages/` and `pages.<lang>/` folders of several sub-folders each, added in one commit, then
`--edits` commits that each edit one page. Each checkout builds it cold (`pincite build`); the
figures are the files and bytes under each top folder of the site, the home page's bytes, and the
site's bytes and files per published document version, and the site's bytes as a multiple of the
text it publishes (the blobs of the documents at the built commit). Counts and bytes, not times.

With `--repo CLONE` (and `--roots`, `--history-start`), the same figures for a clone of a real
repository (e.g. tldr-pages/tldr, roots `pages*`, history from HEAD), built as it is; the clone
is never written to (the index goes beside the site).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import random
import subprocess
import tempfile
from pathlib import Path

from bench.harness import GIT_IDENTITY, checkout_env, checkouts, pincite
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
    parser.add_argument("--repo", type=Path, help="a clone of a real repository to build instead")
    parser.add_argument("--roots", default="", help="with --repo: its corpus roots, comma-separated (`pages*` globs)")
    parser.add_argument("--history-start", default="", help="with --repo: the first commit of the history indexed")


def repo_roots(repo: Path, patterns: str) -> list[str]:
    """The top-level folders of `repo` at HEAD that the comma-separated `patterns` (fnmatch) name."""
    listing = subprocess.run(
        ["git", "-C", str(repo), "ls-tree", "-d", "--name-only", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.split()
    wanted = [p for p in patterns.split(",") if p]
    return [name for name in listing if any(fnmatch.fnmatch(name, p) for p in wanted)]


def text_bytes(repo: Path, roots: list[str]) -> int:
    """The bytes of the files under `roots` at HEAD: the text the site publishes."""
    out = subprocess.run(
        ["git", "-C", str(repo), "ls-tree", "-r", "-l", "HEAD", "--", *roots],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return sum(int(line.split()[3]) for line in out.splitlines() if line.split()[1] == "blob")


def corpus(folder: Path, docs: int, edits: int, seed: int) -> int:
    """The repository; the number of distinct document versions it publishes."""
    rng = random.Random(seed)
    git = ["git", "-C", str(folder), *GIT_IDENTITY]
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


def banner_reads(site: Path) -> tuple[int, int]:
    """The bytes a version page's banner reads (site.json, its commit's place, its path's history
    file), for the median history file and the largest: the whole line where the site has one file
    of it (`commits.json`, an earlier pincite's), else the largest file of commit places."""
    top = (site / "site.json").stat().st_size
    whole_line = site / "commits.json"
    places = [f.stat().st_size for f in (site / "commits").glob("*.json")]
    line = whole_line.stat().st_size if whole_line.exists() else max(places, default=0)
    shards = sorted(f.stat().st_size for f in (site / "history").glob("*.json")) or [0]
    return top + line + shards[len(shards) // 2], top + line + shards[-1]


def run(args: argparse.Namespace) -> Result:
    rows = ["| checkout | folder | files | KB |", "|---|---|---|---|"]
    totals = [
        "| checkout | site KB | ÷ text | files | KB per version | files per version | home page KB "
        "| a version page's banner reads, KB (median, largest) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    figures: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        settings: dict[str, str] = {}
        if args.repo is not None:
            repo = args.repo.resolve()
            roots = repo_roots(repo, args.roots) if args.roots else ["corpus"]
            settings["PINCITE_ROOTS"] = ",".join(roots)
            if args.history_start:
                settings["PINCITE_HISTORY_START"] = args.history_start
            versions = 0
        else:
            repo = Path(tmp) / "repo"
            versions = corpus(repo, args.docs, args.edits, args.seed)
            roots = ["corpus"]
        text = text_bytes(repo, roots)
        for checkout in checkouts(args.baseline):
            out = Path(tmp) / f"site-{checkout.name}"
            index = Path(tmp) / f"index-{checkout.name}.sqlite"
            build = pincite("build", "--repo", str(repo), "--out", str(out), "--index", str(index), "--json")
            # From the checkout: `python -m` puts the working folder first on the path.
            env = checkout_env(checkout.path, **settings)
            done = subprocess.run(build, env=env, cwd=checkout.path, check=True, capture_output=True, text=True)
            versions = versions or int(json.loads(done.stdout)["versions"])
            folders = shape(out)
            files = sum(c for c, _ in folders.values())
            size = sum(b for _, b in folders.values())
            home = (out / "index.html").stat().st_size
            reads = banner_reads(out)
            figures[checkout.name] = {
                "folders": folders,
                "files": files,
                "bytes": size,
                "home": home,
                "text_bytes": text,
                "versions": versions,
                "banner_reads": reads,
            }
            for name in ("changes", "doc", "v", "folders", "pagefind", "history", "diff", "(top)"):
                count, total = folders.get(name, (0, 0))
                rows.append(f"| {checkout.name} | `{name}` | {count} | {total / 1000:.0f} |")
            totals.append(
                f"| {checkout.name} | {size / 1000:.0f} | {size / text:.1f}× | {files} | {size / 1000 / versions:.1f} "
                f"| {files / versions:.2f} | {home / 1000:.1f} | {reads[0] / 1000:.1f}, {reads[1] / 1000:.1f} |"
            )
    if args.repo is not None:
        start = f", history from {args.history_start}" if args.history_start else ", whole history"
        lead = (
            f"{args.repo.name}: {len(roots)} roots{start}: {versions} document versions, {text / 1e6:.1f} MB of text."
        )
    else:
        lead = (
            f"{args.docs} pages in {len(LANGUAGES)} language folders, {args.edits} edits: {versions} document versions."
        )
    return Result(lead + "\n\n" + "\n".join(totals) + "\n\n" + "\n".join(rows), figures)
