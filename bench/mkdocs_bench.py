"""pincite against MkDocs + Pagefind: cold build cost and site size on the same documents (issue 14).

One run measures, side by side, the best and the median of N runs (the runs alternate, so both
sides see the same neighbours on a shared machine):

- pincite's whole cold build: `pincite build` (index + site + Pagefind) with `.pincite/` and the
  site folder removed first;
- `mkdocs build` (default theme, its own lunr search plugin off: Pagefind is the search on both
  sides) followed by `python -m pagefind --site <mkdocs site>`, over a copy of the files under
  the roots at HEAD (`--roots`, default `corpus`: what pincite indexes); one root is the
  docs_dir itself, so its pages are the site's top level, in the theme's navigation;
- wall time and CPU time (user + system of the child processes, from `getrusage(RUSAGE_CHILDREN)`
  deltas, so pincite's process pool and git and Pagefind count too);
- each site's size: the sum of file sizes, the blocks in use (as `du` counts them, hard links
  once) and the files, and pincite's site by part (`v/` version pages, `doc/` document pages,
  ...), with the versions pincite publishes (one page per distinct version in the history).

`--baseline DIR` also measures the pincite of another checkout (e.g. an export of main) in the
same run, for before/after figures.

    python bench/mkdocs_bench.py --workdir /tmp/mkdocs-bench              # 2,000 documents, ~4 versions each
    python bench/mkdocs_bench.py --workdir /tmp/mkdocs-bench --baseline /tmp/pincite-main --json
    python bench/mkdocs_bench.py --repo ~/src/some-clone --roots docs    # an existing clone's docs/

MkDocs is not a dependency of pincite: when `import mkdocs` fails in the running interpreter, the
benchmark makes a virtual environment at `<workdir>/mkdocs-venv` and installs MkDocs there with
pip (this needs the network; CI never runs benchmarks). Pagefind runs from the running
interpreter, where pincite's own `pagefind[bin]` dependency is installed.

Targets (issue 14): pincite's cold build <= 1x the CPU and wall of MkDocs + Pagefind; pincite's
site <= 1.2x the bytes of MkDocs' site + Pagefind's files.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.synth_corpus import SynthParams, generate  # noqa: E402

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
    """Run `cmd` to its end; its wall time and the CPU time of it and everything it waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:4])} ... failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Timing(wall, cpu), proc.stdout


# -- the two sides ------------------------------------------------------------------------


def pincite_build(repo: Path, roots: list[str], checkout: Path, out: Path) -> tuple[Timing, dict[str, Any]]:
    """A cold `pincite build` of `roots` in `repo` by the pincite in `checkout` (no index, no cache, no site)."""
    shutil.rmtree(repo / ".pincite", ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    env = {**os.environ, "PYTHONPATH": str(checkout), "PINCITE_ROOTS": ",".join(roots)}
    cmd = [sys.executable, "-m", "indexer.cli.main", "build", "--repo", str(repo), "--out", str(out), "--json"]
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
        _log(f"installing MkDocs into {venv} ...")
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


def corpus(args: argparse.Namespace, work: Path) -> tuple[Path, dict[str, Any]]:
    if args.repo:
        return Path(args.repo).resolve(), {"repo": str(Path(args.repo).resolve())}
    params = SynthParams(
        docs=args.docs,
        commits=args.commits if args.commits is not None else args.docs,
        files_per_commit=3,
        seed=args.seed,
        target_bytes=args.docs * 5000,
    )
    repo = work / f"synth-{params.docs}-{params.commits}-{params.seed}"
    if not (repo / ".git").is_dir():
        shutil.rmtree(repo, ignore_errors=True)
        _log(f"generating {params.docs} documents, {params.commits} commits in {repo} ...")
        generate(repo, params)
    return repo, {"synthetic": asdict(params)}


def run(args: argparse.Namespace) -> dict[str, Any]:
    started = machine()
    work = Path(args.workdir or tempfile.mkdtemp(prefix="pincite-mkdocs-")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    repo, described = corpus(args, work)
    mkdocs = mkdocs_command(work)
    version = subprocess.run([*mkdocs, "--version"], capture_output=True, text=True).stdout.strip()
    project = work / "mkdocs"
    pages = mkdocs_project(repo, args.roots, project)
    sides = {"pincite": ROOT} | ({"baseline": Path(args.baseline).resolve()} if args.baseline else {})
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in [*sides, "mkdocs"]}
    summaries: dict[str, dict[str, Any]] = {}
    for n in range(1, args.rounds + 1):
        # The order turns each round, so no side always runs just after MkDocs' disk writes.
        order = list(sides.items()) if n % 2 else list(reversed(sides.items()))
        for name, checkout in order:
            _log(f"round {n}: pincite build ({name}, {checkout}) ...")
            timing, summaries[name] = pincite_build(repo, args.roots, checkout, work / f"site-{name}")
            runs[name].append(asdict(timing))
        _log(f"round {n}: mkdocs build + pagefind ...")
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
    out["machine"] = started
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
    out["machine"]["load average at end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
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


def machine() -> dict[str, str]:
    return {
        "cpu": platform.processor() or platform.machine(),
        "cores": str(os.cpu_count()),
        "python": platform.python_version(),
        "load average at start": " ".join(f"{x:.2f}" for x in os.getloadavg()),
    }


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
    lines.append(f"machine: {out['machine']}")
    return "\n".join(lines)


def _log(message: str) -> None:
    print(f"[mkdocs_bench] {message}", file=sys.stderr, flush=True)


def add_corpus_arguments(parser: argparse.ArgumentParser) -> None:
    """The options `corpus` reads: an existing clone, or the synthetic corpus's size and seed."""
    parser.add_argument("--repo", help="measure an existing clone instead of the synthetic corpus")
    parser.add_argument("--docs", type=int, default=2000, help="synthetic documents (about 5 kB each)")
    parser.add_argument("--commits", type=int, help="edit commits of 3 files (default: --docs, ~4 versions each)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--roots", nargs="+", default=["corpus"], help="folders both sides publish (pincite's roots, MkDocs' docs)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    add_corpus_arguments(parser)
    parser.add_argument("--rounds", type=int, default=3, help="runs of each side; the fastest counts")
    parser.add_argument("--baseline", help="another pincite checkout to measure in the same run (before/after)")
    parser.add_argument("--workdir", help="keep the corpus, the MkDocs venv and the sites here (reused)")
    parser.add_argument("--json", action="store_true", help="print every figure as JSON")
    args = parser.parse_args(argv)
    out = run(args)
    print(json.dumps(out, indent=2) if args.json else report(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
