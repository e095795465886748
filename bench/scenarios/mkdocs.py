"""Against MkDocs + Pagefind: cold build cost and site size on the same documents.

One run measures, side by side, the best and the median of N runs (the runs alternate, so both
sides see the same neighbours on a shared machine):

- pincite's whole cold build: `pincite build` (index + site + Pagefind) with `.pincite/` and the
  site folder removed first;
- `mkdocs build` (default theme, its own lunr search plugin off: Pagefind is the search on both
  sides) followed by `python -m pagefind --site <mkdocs site>`, over a copy of the files under
  the roots at HEAD (`--roots`, default `corpus`: what pincite indexes); one root is the
  docs_dir itself, so its pages are the site's top level, in the theme's navigation;
- wall time and CPU time of each side's whole process tree (`bench.harness.measure`: pincite's
  process pool, git and Pagefind count too);
- each site's size: the sum of file sizes, the blocks in use (as `du` counts them, hard links
  once) and the files, and pincite's site by part (`v/` version pages, `doc/` document pages,
  ...), with the versions pincite publishes (one page per distinct version in the history).

`--baseline CHECKOUT` also measures the pincite of another checkout in the same run, for
before/after figures; `--repo CLONE --roots docs` measures an existing clone's documents.

MkDocs is not a dependency of pincite: when `import mkdocs` fails in the running interpreter, the
benchmark makes a virtual environment at `<workdir>/mkdocs-venv` and installs MkDocs there with
pip (this needs the network; CI never runs benchmarks). Pagefind runs from the running
interpreter, where pincite's own `pagefind[extended]` dependency is installed.

Targets: pincite's cold build <= 1x the CPU and wall of MkDocs + Pagefind; pincite's
site <= 1.2x the bytes of MkDocs' site + Pagefind's files.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench.corpora import add_corpus_arguments, corpus
from bench.harness import alternate, checkout_env, checkouts, log, measure, pincite, repository_name
from bench.scenarios import Result

BASELINE = True
TARGET_CPU_RATIO = 1.0
TARGET_SIZE_RATIO = 1.2
MARKDOWN = (".md", ".markdown")


@dataclass
class Timing:
    wall_s: float
    cpu_s: float


@dataclass
class SiteSize:
    bytes: int  # the sum of file sizes
    blocks_bytes: int  # blocks in use, 512-byte units as `du` counts them, each inode once
    files: int


def site_size(folder: Path) -> SiteSize:
    seen: set[int] = set()
    total = blocks = files = 0
    for path in folder.rglob("*"):
        st = path.lstat()
        if not path.is_file() or st.st_ino in seen:
            continue
        seen.add(st.st_ino)
        total += st.st_size
        blocks += st.st_blocks * 512
        files += 1
    return SiteSize(total, blocks, files)


def site_parts(site: Path) -> dict[str, dict[str, int]]:
    """Bytes and files by top-level folder; loose files at the top count as `(top)`."""
    parts: dict[str, dict[str, int]] = {}
    for entry in sorted(site.iterdir()):
        name = entry.name if entry.is_dir() else "(top)"
        size = site_size(entry) if entry.is_dir() else SiteSize(entry.stat().st_size, entry.stat().st_blocks * 512, 1)
        part = parts.setdefault(name, {"bytes": 0, "files": 0})
        part["bytes"] += size.bytes
        part["files"] += size.files
    return parts


def timed(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[Timing, str]:
    """Run `cmd` to its end; its wall time and the CPU time of its whole process tree."""
    run = measure(cmd, cwd=cwd, env=env)
    return Timing(run.wall_s, run.cpu_s), run.stdout


# -- the two sides ------------------------------------------------------------------------


def pincite_build(repo: Path, roots: list[str], checkout: Path, out: Path) -> tuple[Timing, dict[str, Any]]:
    """A cold `pincite build` of `roots` in `repo` by the pincite in `checkout` (no index, no cache, no site)."""
    shutil.rmtree(repo / ".pincite", ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    env = checkout_env(checkout, PINCITE_ROOTS=",".join(roots))
    cmd = pincite("build", "--repo", str(repo), "--out", str(out), "--json")
    # Run from the checkout: `python -m` puts the working folder first on the path, and a clone of
    # pincite itself (as --repo) would otherwise lend its own `indexer` package to both sides.
    timing, stdout = timed(cmd, checkout, env)
    return timing, json.loads(stdout)


def mkdocs_project(repo: Path, roots: list[str], folder: Path) -> int:
    """A minimal MkDocs project whose docs are the files under `roots` at HEAD; its Markdown pages."""
    docs = folder / "docs"
    shutil.rmtree(folder, ignore_errors=True)
    docs.mkdir(parents=True)
    # One root is MkDocs' docs_dir itself, as a project would set it: its pages are the site's
    # top level and the default theme lists them all in its navigation. (Archived as a folder
    # inside docs/, they made one top-level section, for which the theme draws no navigation at
    # all: a lighter site than any MkDocs project of these documents would publish.)
    single = len(roots) == 1 and roots[0].strip("/") not in ("", ".")
    tree = ["HEAD:" + roots[0].strip("/")] if single else ["HEAD", "--", *roots]
    archive = subprocess.run(["git", "-C", str(repo), "archive", *tree], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(docs)], input=archive.stdout, check=True)
    paths = [p for p in docs.rglob("*") if p.name.lower().endswith(MARKDOWN)]
    # The default theme; the built-in lunr search is off because Pagefind is the search on both sides.
    (folder / "mkdocs.yml").write_text(
        "site_name: Corpus\ndocs_dir: docs\nsite_dir: site\nplugins: []\n", encoding="utf-8"
    )
    return len(paths)


def mkdocs_command(workdir: Path) -> list[str]:
    """How to run MkDocs: the running interpreter's, or one installed in a venv under `workdir`."""
    probe = subprocess.run([sys.executable, "-c", "import mkdocs"], capture_output=True)
    if probe.returncode == 0:
        return [sys.executable, "-m", "mkdocs"]
    venv = workdir / "mkdocs-venv"
    python = venv / "bin" / "python"
    if not python.exists() or subprocess.run([str(python), "-c", "import mkdocs"], capture_output=True).returncode:
        log(f"installing MkDocs into {venv} ...")
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "mkdocs"], check=True, capture_output=True)
    return [str(python), "-m", "mkdocs"]


def mkdocs_build(project: Path, mkdocs: list[str]) -> tuple[Timing, Timing]:
    shutil.rmtree(project / "site", ignore_errors=True)
    build, _ = timed([*mkdocs, "build", "-q", "-f", "mkdocs.yml"], project)
    search, _ = timed([sys.executable, "-m", "pagefind", "--site", "site", "--silent"], project)
    return build, search


def version_text_bytes(repo: Path, site: Path) -> int:
    """The bytes of the versions pincite publishes (`v/<blob>.html`): what its version pages must hold."""
    blobs = "".join(f"{p.stem}\n" for p in (site / "v").glob("*.html"))
    sizes = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "--batch-check=%(objectsize)"], input=blobs, capture_output=True, text=True
    ).stdout.split()
    return sum(int(size) for size in sizes if size.isdigit())


# -- the run ------------------------------------------------------------------------------


def measure_sides(args: argparse.Namespace) -> dict[str, Any]:
    work = Path(args.workdir or tempfile.mkdtemp(prefix="pincite-mkdocs-")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    repo, described = corpus(args, work)
    mkdocs = mkdocs_command(work)
    version = subprocess.run([*mkdocs, "--version"], capture_output=True, text=True).stdout.strip()
    project = work / "mkdocs"
    pages = mkdocs_project(repo, args.roots, project)
    sides = {"pincite" if c.name == "this" else c.name: c.path for c in checkouts(args.baseline)}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in [*sides, "mkdocs"]}
    summaries: dict[str, dict[str, Any]] = {}
    # The order turns each round, so no side always runs just after MkDocs' disk writes.
    for n, order in alternate(list(sides.items()), args.rounds):
        for name, checkout in order:
            log(f"round {n + 1}: pincite build ({name}, {checkout}) ...")
            timing, summaries[name] = pincite_build(repo, args.roots, checkout, work / f"site-{name}")
            runs[name].append(asdict(timing))
        log(f"round {n + 1}: mkdocs build + pagefind ...")
        build, search = mkdocs_build(project, mkdocs)
        runs["mkdocs"].append(
            {
                "wall_s": build.wall_s + search.wall_s,
                "cpu_s": build.cpu_s + search.cpu_s,
                "mkdocs": asdict(build),
                "pagefind": asdict(search),
            }
        )
    out: dict[str, Any] = {"corpus": described, "mkdocs_version": version, "markdown_pages": pages}
    out["markdown_bytes"] = site_size(project / "docs").bytes
    for name, measured in runs.items():
        site = project / "site" if name == "mkdocs" else work / f"site-{name}"
        out[name] = {
            "best_wall_s": min(r["wall_s"] for r in measured),
            "best_cpu_s": min(r["cpu_s"] for r in measured),
            # On shared cores one run can be far from the others: the median shows the spread.
            "median_cpu_s": statistics.median(r["cpu_s"] for r in measured),
            "runs": measured,
            "size": asdict(site_size(site)),
            "parts": site_parts(site),
        }
        if name != "mkdocs":
            out[name]["version_pages"] = len(list((site / "v").glob("*.html")))
            out[name]["version_text_bytes"] = version_text_bytes(repo, site)
            out[name]["summary"] = summaries[name]
    out["ratios"] = ratios(out)
    return out


def ratios(out: dict[str, Any]) -> dict[str, float]:
    ref = out["mkdocs"]
    result = {}
    for name in ("pincite", "baseline"):
        if name in out:
            side = out[name]
            result[f"{name}_wall"] = side["best_wall_s"] / ref["best_wall_s"]
            result[f"{name}_cpu"] = side["best_cpu_s"] / ref["best_cpu_s"]
            result[f"{name}_median_cpu"] = side["median_cpu_s"] / ref["median_cpu_s"]
            result[f"{name}_bytes"] = side["size"]["bytes"] / ref["size"]["bytes"]
            result[f"{name}_blocks"] = side["size"]["blocks_bytes"] / ref["size"]["blocks_bytes"]
    return {k: round(v, 3) for k, v in result.items()}


def report(out: dict[str, Any]) -> str:
    lines = [
        f"MkDocs: {out['mkdocs_version']}; {out['markdown_pages']} Markdown pages at HEAD"
        f" ({out['markdown_bytes'] / 1e6:.1f} MB)"
    ]
    ref = out["mkdocs"]
    for name in ("pincite", "baseline", "mkdocs"):
        if name not in out:
            continue
        side, size = out[name], out[name]["size"]
        line = (
            f"{name:9} wall {side['best_wall_s']:7.2f} s  cpu {side['best_cpu_s']:7.2f} s"
            f" (median {side['median_cpu_s']:.2f} s)  "
            f"site {size['bytes'] / 1e6:8.1f} MB ({size['blocks_bytes'] / 1e6:.1f} MB in blocks, {size['files']} files)"
        )
        if name != "mkdocs":
            line += (
                f"  = {side['best_wall_s'] / ref['best_wall_s']:.2f}x wall, "
                f"{side['best_cpu_s'] / ref['best_cpu_s']:.2f}x cpu"
                f" ({side['median_cpu_s'] / ref['median_cpu_s']:.2f}x by medians), "
                f"{size['bytes'] / ref['size']['bytes']:.2f}x bytes; "
                f"{side['version_pages']} version pages"
            )
        lines.append(line)
        if name != "mkdocs":
            lines.append(
                f"          the versions' text alone: {side['version_text_bytes'] / 1e6:.1f} MB"
                f" = {side['version_text_bytes'] / ref['size']['bytes']:.2f}x MkDocs' site"
            )
        parts = ", ".join(f"{k} {v['bytes'] / 1e6:.1f} MB/{v['files']}" for k, v in side["parts"].items())
        lines.append(f"          parts: {parts}")
    return "```\n" + "\n".join(lines) + "\n```"


def arguments(parser: argparse.ArgumentParser) -> None:
    add_corpus_arguments(parser)
    parser.add_argument("--rounds", type=int, default=3, help="runs of each side; the fastest counts")
    parser.add_argument("--workdir", help="keep the corpus, the MkDocs venv and the sites here (reused)")


def run(args: argparse.Namespace) -> Result:
    with tempfile.TemporaryDirectory(prefix="pincite-bench-") as tmp:
        args.workdir = args.workdir or tmp  # without --workdir, nothing is left behind
        out = measure_sides(args)
    subject = repository_name(Path(args.repo)) if args.repo else None
    return Result(report(out), out, subject=subject)
