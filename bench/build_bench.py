"""Foundation benchmark: build and search pincite's index over a synthetic corpus.

One run generates (or reuses) a synthetic corpus repository from a fixed seed and reports:

- two floors, measured in the same run: every blob at HEAD read with one
  `git cat-file --batch` process and its text inserted into bare FTS5 tables, (a) porter
  only and (b) porter plus trigram, which is what pincite's index holds; the 3x build
  target is judged against floor (b);
- the cold `indexer.build(..., site=False)`: time, ratio to the floors, peak RSS;
- an incremental build after a commit changing one file: time, the summary's extracted
  count (must be 1), and the time spent copying the previous index file reported apart;
- search latency p50/p95 over 100 queries, through `indexer.index.search` and through the
  SQL alone on an open index;
- the machine.

Each measured step runs in its own child process, so peak memory is that step's own.

    python bench/build_bench.py                 # 10,000 documents, ~50 MB, 200 commits
    python bench/build_bench.py --docs 1000     # a quicker run (size scales with --docs)
    python bench/build_bench.py --record        # also write the figures to BENCHMARKS.md
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import re
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.synth_corpus import SynthParams, Vocabulary, commit_change, generate  # noqa: E402

SECTION = "## Build and search"
PORTER = "porter unicode61 remove_diacritics 2"
STOPWORD_RANKS = 100  # the most frequent words, timed apart from the content-word queries
TARGETS = {"build_ratio": 3.0, "incremental_s": 1.0, "p50_ms": 10.0, "p95_ms": 50.0, "rss_mb": 1024.0}


# -- child steps ------------------------------------------------------------------------
def _cpu_seconds() -> float:
    """User + system CPU of this process and its finished children (git): less noisy than wall time."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _peak_rss_mb() -> float:
    """This process's RSS high-water mark plus that of its largest child (git), in MB."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return (own + child) / 1024.0  # KiB on Linux


def step_floor(repo: Path, db: Path, trigram: bool) -> dict[str, Any]:
    """Read every blob at HEAD through one cat-file process; insert the texts into bare FTS5."""
    started, cpu = time.perf_counter(), _cpu_seconds()
    listing = subprocess.run(
        ["git", "ls-tree", "-r", "-z", "HEAD", "--", "corpus"], cwd=repo, capture_output=True, check=True
    ).stdout
    shas = [rec.split(b"\t", 1)[0].split()[2] for rec in listing.split(b"\0") if rec]
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode = OFF")
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute(f"CREATE VIRTUAL TABLE docs USING fts5(text, tokenize='{PORTER}')")
    if trigram:
        conn.execute("CREATE VIRTUAL TABLE docs_tri USING fts5(text, tokenize='trigram')")
    conn.execute("BEGIN")
    proc = subprocess.Popen(["git", "cat-file", "--batch"], cwd=repo, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    total = 0
    for sha in shas:
        proc.stdin.write(sha + b"\n")
        proc.stdin.flush()
        size = int(proc.stdout.readline().split()[2])
        text = proc.stdout.read(size).decode("utf-8")
        proc.stdout.read(1)
        total += size
        conn.execute("INSERT INTO docs(text) VALUES (?)", (text,))
        if trigram:
            conn.execute("INSERT INTO docs_tri(text) VALUES (?)", (text,))
    proc.stdin.close()
    proc.wait()
    conn.execute("COMMIT")
    conn.close()
    return {
        "seconds": time.perf_counter() - started,
        "cpu_seconds": _cpu_seconds() - cpu,
        "blobs": len(shas),
        "bytes": total,
        "db_bytes": db.stat().st_size,
        "rss_mb": _peak_rss_mb(),
    }


def step_build(repo: Path, index: Path) -> dict[str, Any]:
    import indexer

    started, cpu = time.perf_counter(), _cpu_seconds()
    summary = indexer.build(repo, site=False, index_path=index)
    seconds = time.perf_counter() - started
    return {
        "seconds": seconds,
        "cpu_seconds": _cpu_seconds() - cpu,
        "summary": summary.to_json(),
        "stages": dict(getattr(summary, "stages", {}) or {}),
        "index_bytes": index.stat().st_size,
        "rss_mb": _peak_rss_mb(),
    }


def step_search(repo: Path, index: Path, queries: list[dict[str, Any]]) -> dict[str, Any]:
    import indexer
    from indexer.index.search import plain_query
    from indexer.index.store import IndexReader

    def timed(run: Any) -> tuple[list[float], list[float]]:
        """Wall and CPU milliseconds per query; CPU time shows what load on a shared machine adds."""
        for q in queries[:5]:  # warm the page cache and the imports, not counted
            run(q)
        wall, cpu = [], []
        for q in queries:
            t0, c0 = time.perf_counter(), time.process_time()
            run(q)
            wall.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
        return wall, cpu

    api, api_cpu = timed(lambda q: indexer.search(q["query"], repo, index_path=index, path_prefix=q.get("prefix")))
    reader = IndexReader(index)
    seq = reader.head_seq()
    sql, _sql_cpu = timed(lambda q: reader.search_passages(plain_query(q["query"]), seq, 10, q.get("prefix")))
    matches = [
        reader.conn.execute(
            "SELECT count(*) FROM passages_fts WHERE passages_fts MATCH ?", (plain_query(q["query"]),)
        ).fetchone()[0]
        for q in queries
    ]
    passages = reader.conn.execute("SELECT count(*) FROM passages").fetchone()[0]
    reader.close()
    return {
        "api_ms": api,
        "api_cpu_ms": api_cpu,
        "sql_ms": sql,
        "matches": matches,
        "passages": passages,
        "rss_mb": _peak_rss_mb(),
    }


def run_step(name: str, **kwargs: Any) -> dict[str, Any]:
    """Run one step in a fresh Python process and return its JSON result."""
    payload = json.dumps({"step": name, "kwargs": {k: str(v) if isinstance(v, Path) else v for k, v in kwargs.items()}})
    proc = subprocess.run([sys.executable, __file__, "--child", payload], capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        raise SystemExit(f"step {name} failed:\n{proc.stderr}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def _child(payload: str) -> None:
    spec = json.loads(payload)
    kwargs = spec["kwargs"]
    for key in ("repo", "db", "index"):
        if key in kwargs:
            kwargs[key] = Path(kwargs[key])
    steps: dict[str, Callable[..., dict[str, Any]]] = {"floor": step_floor, "build": step_build, "search": step_search}
    print(json.dumps(steps[spec["step"]](**kwargs)))


# -- the run ----------------------------------------------------------------------------
def make_queries(params: SynthParams, repo: Path, count: int = 100) -> list[dict[str, Any]]:
    """Content-word queries of mixed selectivity, drawn from the corpus's own vocabulary.

    Words are drawn log-uniformly by frequency rank from rank STOPWORD_RANKS on: the most
    frequent words play the part of "the", "of", "and", which people do not search for
    alone; those are timed apart (`stopword_queries`).
    """
    vocab = Vocabulary(random.Random(params.seed), params.vocabulary)
    rng = random.Random(params.seed + 7)
    low = math.log(STOPWORD_RANKS + 1)

    def word() -> str:  # log-uniform rank: common, middling and rare content words alike
        return vocab.word_at_rank(int(math.exp(rng.uniform(low, math.log(params.vocabulary)))) - 1)

    paths = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", "HEAD", "--", "corpus"], cwd=repo, capture_output=True, text=True
    ).stdout.split()
    queries: list[dict[str, Any]] = []
    for _ in range(count * 3 // 10):
        queries.append({"kind": "one word", "query": word()})
    for _ in range(count * 3 // 10):
        queries.append({"kind": "two words", "query": f"{word()} {word()}"})
    for _ in range(count * 2 // 10):  # a phrase pasted from a document: stop words included
        text = (repo / rng.choice(paths)).read_text(encoding="utf-8").split()
        at = rng.randrange(max(len(text) - 3, 1))
        queries.append({"kind": "three words from a document", "query": " ".join(text[at : at + 3])})
    while len(queries) < count:
        folder = rng.choice(paths).split("/")[1]
        queries.append({"kind": "word + path prefix", "query": word(), "prefix": f"corpus/{folder}/"})
    return queries


def stopword_queries(params: SynthParams, count: int = 10) -> list[dict[str, Any]]:
    """The most frequent words alone: each matches a large share of all passages."""
    vocab = Vocabulary(random.Random(params.seed), params.vocabulary)
    return [{"kind": "stop word alone", "query": vocab.word_at_rank(rank)} for rank in range(count)]


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(pct / 100 * len(ordered)) - 1))]


def machine() -> dict[str, str]:
    cpu = "unknown"
    with open("/proc/cpuinfo", encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo", encoding="utf-8") as handle:
        mem_kb = int(handle.readline().split()[1])
    git_version = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()
    return {
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "memory": f"{mem_kb / 1024 / 1024:.1f} GiB",
        "os": platform.platform(),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "git": git_version.replace("git version ", ""),
        "load average at start": " ".join(f"{x:.2f}" for x in os.getloadavg()),
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    params = SynthParams(
        docs=args.docs,
        # History scales with the corpus, so a quick run keeps the old-versions share of the default.
        commits=args.commits if args.commits is not None else max(10, args.docs // 50),
        files_per_commit=args.files_per_commit,
        seed=args.seed,
        target_bytes=int(args.docs * 5000),
    )
    info = machine()
    work = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="pincite-bench-"))
    repo = work / f"synth-{params.docs}-{params.commits}-{params.files_per_commit}-{params.seed}"
    out: dict[str, Any] = {"params": asdict(params), "machine": info}
    before = ""
    try:
        if (repo / ".git").is_dir() and args.workdir:
            _log(f"reusing {repo}")
            subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=repo, check=True)
        else:
            shutil.rmtree(repo, ignore_errors=True)
            _log(f"generating {params.docs} documents, {params.commits} commits in {repo} ...")
            corpus = generate(repo, params)
            out["generate_s"] = corpus.seconds
        scratch = work / "scratch"
        shutil.rmtree(scratch, ignore_errors=True)
        scratch.mkdir()
        # Floors and cold builds alternate and repeat; each figure is its fastest run, since
        # on a shared machine every slower run measured somebody else's work as well.
        runs: dict[str, list[dict[str, Any]]] = {"floor_porter": [], "floor_both": [], "cold": []}
        index = scratch / "index.sqlite"
        for n in range(1, args.repeat + 1):
            for trigram, key in ((False, "floor_porter"), (True, "floor_both")):
                _log(f"floor ({key}), run {n} ...")
                db = scratch / f"{key}-{n}.sqlite"
                runs[key].append(run_step("floor", repo=repo, db=db, trigram=trigram))
                db.unlink()
            _log(f"cold build, run {n} ...")
            index.unlink(missing_ok=True)
            runs["cold"].append(run_step("build", repo=repo, index=index))
        for key, measured in runs.items():
            out[key] = min(measured, key=lambda r: float(r["seconds"]))
            out[key]["all_seconds"] = [r["seconds"] for r in measured]
        docs = sorted(p.relative_to(repo).as_posix() for p in (repo / "corpus").rglob("*.md"))
        path = docs[params.seed * 7919 % len(docs)]
        before = _git_head(repo)
        commit_change(repo, path, "\nOne more paragraph, added by the incremental build benchmark.\n")
        _log(f"incremental build after changing {path} ...")
        out["incremental"] = run_step("build", repo=repo, index=index)
        queries = make_queries(params, repo, args.queries)
        _log(f"search: {len(queries)} queries ...")
        out["search"] = run_step("search", repo=repo, index=index, queries=queries)
        out["queries"] = queries
        stop = stopword_queries(params)
        _log(f"search: {len(stop)} stop-word queries ...")
        out["search_stopwords"] = run_step("search", repo=repo, index=index, queries=stop)
        out["stopword_queries"] = stop
        info["load average at end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
        elif before:  # drop the benchmark's own commit so the next run starts from the same tip
            subprocess.run(["git", "reset", "-q", "--hard", before], cwd=repo, check=False)
    return out


def _git_head(repo: Path) -> str:
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# -- the report -------------------------------------------------------------------------
def figures(res: dict[str, Any]) -> dict[str, float]:
    cold, inc, srch = res["cold"], res["incremental"], res["search"]
    copy = float(inc["stages"].get("copy_previous", float("nan")))
    replace = float(inc["stages"].get("replace", 0.0))
    stop = res.get("search_stopwords", {"api_ms": [float("nan")]})["api_ms"]
    return {
        "floor_porter_s": res["floor_porter"]["seconds"],
        "floor_both_s": res["floor_both"]["seconds"],
        "cold_s": cold["seconds"],
        "ratio_both": cold["seconds"] / res["floor_both"]["seconds"],
        "ratio_porter": cold["seconds"] / res["floor_porter"]["seconds"],
        "incremental_s": inc["seconds"],
        "incremental_copy_s": copy,
        "incremental_replace_s": replace,
        "incremental_work_s": inc["seconds"] - copy - replace if not math.isnan(copy) else inc["seconds"],
        "extracted": inc["summary"]["extracted"],
        "api_cpu_p50": percentile(srch["api_cpu_ms"], 50),
        "api_cpu_p95": percentile(srch["api_cpu_ms"], 95),
        "incremental_cpu_s": inc["cpu_seconds"],
        "api_p50": percentile(srch["api_ms"], 50),
        "api_p95": percentile(srch["api_ms"], 95),
        "sql_p50": percentile(srch["sql_ms"], 50),
        "sql_p95": percentile(srch["sql_ms"], 95),
        "rss_mb": cold["rss_mb"],
        "cpu_ratio_both": cold["cpu_seconds"] / res["floor_both"]["cpu_seconds"],
        "stop_p50": percentile(stop, 50),
        "stop_max": max(stop),
    }


def report(res: dict[str, Any], command: str) -> str:
    f = figures(res)
    p = res["params"]
    cold, inc = res["cold"], res["incremental"]
    fb = res["floor_both"]
    srch = res["search"]
    ok = {
        "ratio": f["ratio_both"] <= TARGETS["build_ratio"],
        "inc": f["incremental_work_s"] < TARGETS["incremental_s"] and f["extracted"] == 1,
        "p50": f["api_p50"] < TARGETS["p50_ms"],
        "p95": f["api_p95"] < TARGETS["p95_ms"],
        "rss": f["rss_mb"] < TARGETS["rss_mb"],
    }

    def mark(key: str) -> str:
        return "met" if ok[key] else "**missed**"

    stages = ", ".join(f"{k} {v:.2f} s" for k, v in cold["stages"].items())
    inc_stages = ", ".join(f"{k} {v:.3f} s" for k, v in inc["stages"].items())
    matches = sorted(srch["matches"])
    stop_matches = sorted(res["search_stopwords"]["matches"])
    runs = "; ".join(
        f"{name} " + ", ".join(f"{x:.1f}" for x in res[key]["all_seconds"]) + " s"
        for key, name in (("floor_porter", "floor (a)"), ("floor_both", "floor (b)"), ("cold", "cold build"))
    )
    lines = [
        f"Corpus: {p['docs']:,} Markdown documents, {fb['bytes'] / 1e6:.1f} MB at HEAD, {p['commits']} commits of "
        f"{p['files_per_commit']} files each on top (seed {p['seed']}); the cold build indexes "
        f"{cold['summary']['extracted']:,} versions (history included) into {srch['passages']:,} passages "
        f"({cold['summary']['passages']:,} at HEAD); index file {cold['index_bytes'] / 1e6:.0f} MB.",
        "",
        "| measure | figure | target |",
        "|---|---|---|",
        f"| floor (a): cat-file --batch + FTS5 porter only | {f['floor_porter_s']:.2f} s | — |",
        f"| floor (b): cat-file --batch + FTS5 porter + trigram (what the index holds) | {f['floor_both_s']:.2f} s"
        " | — |",
        f"| cold build (`indexer.build(..., site=False)`) | {f['cold_s']:.2f} s = **{f['ratio_both']:.2f}× floor (b)**"
        f" ({f['ratio_porter']:.2f}× floor (a); CPU time {f['cpu_ratio_both']:.2f}× floor (b)) "
        f"| ≤ 3× floor (b): {mark('ratio')} |",
        f"| incremental build, one changed file | {f['incremental_s']:.3f} s = index work "
        f"**{f['incremental_work_s']:.3f} s** + copying the previous index file {f['incremental_copy_s']:.3f} s + "
        f"renaming the new file over it {f['incremental_replace_s']:.3f} s; extracted = {f['extracted']}; "
        f"CPU time {f['incremental_cpu_s']:.3f} s"
        f" | work < 1 s, extracted = 1: {mark('inc')} |",
        f"| search p50 / p95, `index.search`, {len(srch['api_ms'])} content-word queries | {f['api_p50']:.1f} ms"
        f" / {f['api_p95']:.1f} ms | < 10 ms / < 50 ms: {mark('p50')} / {mark('p95')} |",
        f"| the same, CPU time of the calling process | {f['api_cpu_p50']:.1f} ms / {f['api_cpu_p95']:.1f} ms | — |",
        f"| the same, SQL only on an open index | {f['sql_p50']:.1f} ms / {f['sql_p95']:.1f} ms | — |",
        f"| search, {len(stop_matches)} stop words alone (p50 / max) | {f['stop_p50']:.0f} ms / {f['stop_max']:.0f} ms"
        " | none set |",
        f"| peak RSS of the cold build (its process + largest git child) | {f['rss_mb']:.0f} MB"
        f" | < 1 GB: {mark('rss')} |",
        "",
        f"Every run (fastest counts): {runs}.  ",
        f"Cold build stages: {stages}.  ",
        f"Incremental build stages: {inc_stages}.  ",
        f"Content-word queries: 30 one-word, 30 two-word, 20 three consecutive words taken from a document "
        f"(stop words included), 20 one word under a path prefix; words drawn log-uniformly by frequency rank "
        f"from rank {STOPWORD_RANKS} on. Matching passages per query: median {matches[len(matches) // 2]:,}, "
        f"max {matches[-1]:,} of {srch['passages']:,}. The {len(stop_matches)} most frequent words alone match "
        f"{stop_matches[0]:,} to {stop_matches[-1]:,} passages each; bm25 has to score every one of them.  ",
        f"Floor peak RSS: {res['floor_both']['rss_mb']:.0f} MB.",
        "",
        "Machine: " + "; ".join(f"{k} {v}" for k, v in res["machine"].items()) + ".",
        "",
        f"Command: `{command}`",
    ]
    return "\n".join(lines)


def record(
    markdown: str, target: Path, when: str, heading: str = SECTION, script: str = "bench/build_bench.py"
) -> None:
    """Write (or replace) one benchmark's own section of BENCHMARKS.md; others stay untouched."""
    section = f"{heading}\n\nMeasured {when} by `{script}`.\n\n{markdown}\n"
    text = target.read_text(encoding="utf-8") if target.exists() else "# Benchmarks\n"
    found = re.search(rf"^{re.escape(heading)}$", text, flags=re.MULTILINE)
    if found:
        nxt = text.find("\n## ", found.end())
        tail = text[nxt + 1 :] if nxt != -1 else ""
        text = text[: found.start()] + section + ("\n" + tail if tail else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    target.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        _child(argv[1])
        return 0
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=10_000, help="documents (about 5 kB each)")
    parser.add_argument("--commits", type=int, help="edit commits after the first (default: docs / 50, so 200)")
    parser.add_argument("--files-per-commit", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=2, help="runs of each floor and of the cold build")
    parser.add_argument("--workdir", help="keep the generated repository here and reuse it on the next run")
    parser.add_argument("--record", action="store_true", help="write the figures to BENCHMARKS.md")
    parser.add_argument("--json", action="store_true", help="print every raw figure as JSON")
    args = parser.parse_args(argv)
    command = "python bench/build_bench.py" + "".join(
        f" --{name.replace('_', '-')} {getattr(args, name)}"
        for name in ("docs", "commits", "files_per_commit", "seed", "queries", "repeat")
        if getattr(args, name) != parser.get_default(name)
    )
    res = run(args)
    text = report(res, command)
    if args.json:
        print(json.dumps(res | {"figures": figures(res)}, indent=2))
    else:
        print(text)
    if args.record:
        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        record(text, ROOT / "BENCHMARKS.md", when)
        _log(f"recorded in {ROOT / 'BENCHMARKS.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
