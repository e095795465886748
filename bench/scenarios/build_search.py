"""Build and search: the cold and incremental index build and search latency over a synthetic corpus, against floors.

One run generates (or reuses) a synthetic corpus repository from a fixed seed and reports:

- two floors, measured in the same run: every version the build indexes read with one
  `git cat-file --batch` process, its paragraphs inserted into a bare FTS5 table and the
  table optimized: (a) porter only, the floor the build targets are judged against, and
  (b) porter plus a trigram table without positions (`detail=none`) over every text, as
  pincite's index held before schema 4 (now only CJK texts get trigram rows); the same
  floors over HEAD's blobs alone judge a build of HEAD only (`history_start = HEAD`);
- the cold `indexer.build(..., site=False)` of the whole history and of HEAD only, and the
  same cold build by a baseline checkout (`--baseline`), alternated, best of `--repeat`;
- CPU time and peak memory of each step's whole process tree: the build's process pool
  and git included (the benchmark adopts and reaps the pool's orphaned server process);
- an incremental build after a commit changing one file: time, the summary's extracted
  count (must be 1), and the time spent copying the previous index file reported apart;
- search latency p50/p95 over 100 content-word queries and the ten most frequent words
  alone, through `indexer.index.search` and through the SQL alone on an open index;

The floors and both builds run alternated, best of `--repeat`; each in a fresh process
(`bench.harness.step`), the baseline's build and search with the baseline's pincite.
"""

from __future__ import annotations

import argparse
import math
import random
import re
import shutil
import sqlite3
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench.harness import ROOT, log, own_cpu, percentile, step
from bench.scenarios import Result
from tests.synth_corpus import SynthParams, Vocabulary, commit_change, generate

BASELINE = True
PORTER = "porter unicode61 remove_diacritics 2"
STOPWORD_RANKS = 100  # the most frequent words, timed apart from the content-word queries
TARGETS = {
    "build_cpu_ratio": 3.0,  # CPU time of the cold build over floor (a)'s
    "head_cpu_ratio": 2.0,  # the same for a build of HEAD only
    "incremental_s": 1.0,
    "p50_ms": 10.0,
    "p95_ms": 50.0,
    "stop_p95_ms": 50.0,
    "rss_mb": 500.0,
}
PARAGRAPH_BREAK = re.compile(r"\n[ \t\r]*\n")


# -- child steps (each run in a fresh process by `run_step`) -------------------------------
def indexed_blobs(repo: Path, head_only: bool) -> list[bytes]:
    """The blobs a cold build indexes: HEAD's, or every version along the first-parent history."""
    if head_only:
        listing = subprocess.run(
            ["git", "ls-tree", "-r", "-z", "HEAD", "--", "corpus"], cwd=repo, capture_output=True, check=True
        ).stdout
        return [rec.split(b"\t", 1)[0].split()[2] for rec in listing.split(b"\0") if rec]
    log = subprocess.run(
        ["git", "log", "--first-parent", "--root", "--format=", "--raw", "--no-abbrev", "--no-renames", "--", "corpus"],
        cwd=repo,
        capture_output=True,
        check=True,
    ).stdout
    found: dict[bytes, None] = {}
    for line in log.splitlines():
        fields = line.split(b"\t", 1)[0].split()
        if len(fields) >= 4 and fields[3].strip(b"0"):  # a deleted path's new blob is all zeros
            found.setdefault(fields[3])
    return list(found)


def step_floor(repo: str, db: str, trigram: bool, head_only: bool) -> dict[str, Any]:
    """Read the indexed blobs through one cat-file process; their paragraphs into bare FTS5; optimize."""
    return fts_floor(repo, db, lambda: indexed_blobs(Path(repo), head_only), trigram)


def fts_floor(repo: str, db: str, blobs: Callable[[], list[bytes]], trigram: bool = False) -> dict[str, Any]:
    """Floor (a), or (b) with `trigram`: the blobs `blobs` lists (the listing counts too) read through
    one `git cat-file --batch`, their paragraphs into a bare FTS5 porter table, optimized."""
    started, cpu = time.perf_counter(), own_cpu()
    shas = blobs()
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode = OFF")
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute(f"CREATE VIRTUAL TABLE docs USING fts5(text, tokenize='{PORTER}')")
    if trigram:  # as pincite's versions_tri: whole texts, no positions
        conn.execute("CREATE VIRTUAL TABLE docs_tri USING fts5(text, tokenize='trigram', detail='none')")
    conn.execute("BEGIN")
    proc = subprocess.Popen(["git", "cat-file", "--batch"], cwd=repo, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    total = 0
    for sha in shas:
        proc.stdin.write(sha + b"\n")
        proc.stdin.flush()
        size = int(proc.stdout.readline().split()[2])
        text = proc.stdout.read(size).decode("utf-8", errors="replace")
        proc.stdout.read(1)
        total += size
        paragraphs = [(p,) for p in PARAGRAPH_BREAK.split(text) if p.strip()]
        conn.executemany("INSERT INTO docs(text) VALUES (?)", paragraphs)
        if trigram:
            conn.execute("INSERT INTO docs_tri(text) VALUES (?)", (text,))
    proc.stdin.close()
    proc.wait()
    conn.execute("COMMIT")
    conn.execute("INSERT INTO docs(docs) VALUES ('optimize')")
    if trigram:
        conn.execute("INSERT INTO docs_tri(docs_tri) VALUES ('optimize')")
    conn.close()
    return {"seconds": time.perf_counter() - started, "cpu_before": cpu, "blobs": len(shas), "bytes": total}


def step_build(repo: str, index: str, head_only: bool = False) -> dict[str, Any]:
    import indexer
    from indexer.config import load_config

    started, cpu = time.perf_counter(), own_cpu()
    config = load_config(Path(repo), {"index_path": index, "history_start": "HEAD" if head_only else None})
    summary = indexer.build(Path(repo), site=False, index_path=Path(index), config=config)
    seconds = time.perf_counter() - started
    return {
        "seconds": seconds,
        "cpu_before": cpu,
        "summary": summary.to_json(),
        "stages": dict(getattr(summary, "stages", {}) or {}),
        "index_bytes": Path(index).stat().st_size,
        "code": str(Path(indexer.__file__).resolve().parent.parent),
    }


def step_search(repo: str, index: str, queries: list[dict[str, Any]]) -> dict[str, Any]:
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

    api, api_cpu = timed(
        lambda q: indexer.search(q["query"], Path(repo), index_path=Path(index), path_prefix=q.get("prefix"))
    )
    reader = IndexReader(Path(index))
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
    }


def run_step(name: str, code: Path | None = None, **kwargs: Any) -> dict[str, Any]:
    """Run `step_<name>` in a fresh process, with the pincite of `code` (default: this checkout);
    add its process tree's CPU time (less the child's start-up) and peak memory."""
    result, measured = step(f"{__name__}:step_{name}", checkout=code or ROOT, **kwargs)
    result["cpu_seconds"] = measured.cpu_s
    result["rss_mb"] = measured.peak_rss_mb
    return result


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


def measure(args: argparse.Namespace) -> dict[str, Any]:
    params = SynthParams(
        docs=args.docs,
        # History scales with the corpus, so a quick run keeps the old-versions share of the default.
        commits=args.commits if args.commits is not None else max(10, args.docs // 50),
        files_per_commit=args.files_per_commit,
        seed=args.seed,
        target_bytes=int(args.docs * 5000),
    )
    work = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="pincite-bench-"))
    repo = work / f"synth-{params.docs}-{params.commits}-{params.files_per_commit}-{params.seed}"
    out: dict[str, Any] = {"params": asdict(params)}
    before = ""
    try:
        if (repo / ".git").is_dir() and args.workdir:
            log(f"reusing {repo}")
            subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=repo, check=True)
        else:
            shutil.rmtree(repo, ignore_errors=True)
            log(f"generating {params.docs} documents, {params.commits} commits in {repo} ...")
            corpus = generate(repo, params)
            out["generate_s"] = corpus.seconds
        scratch = work / "scratch"
        shutil.rmtree(scratch, ignore_errors=True)
        scratch.mkdir()
        out["runs"] = measure_cold(repo, scratch, args)
        for key, measured in out["runs"].items():
            out[key] = min(measured, key=lambda r: float(r["cpu_seconds"]))
        index = scratch / "index.sqlite"
        log("cold build for the incremental and search steps ...")
        index.unlink(missing_ok=True)
        run_step("build", repo=repo, index=index)
        docs = sorted(p.relative_to(repo).as_posix() for p in (repo / "corpus").rglob("*.md"))
        path = docs[params.seed * 7919 % len(docs)]
        before = _git_head(repo)
        commit_change(repo, path, "\nOne more paragraph, added by the incremental build benchmark.\n")
        log(f"incremental build after changing {path} ...")
        out["incremental"] = run_step("build", repo=repo, index=index)
        queries = make_queries(params, repo, args.queries)
        log(f"search: {len(queries)} queries ...")
        out["search"] = run_step("search", repo=repo, index=index, queries=queries)
        out["queries"] = queries
        stop = stopword_queries(params)
        log(f"search: {len(stop)} stop-word queries ...")
        out["search_stopwords"] = run_step("search", repo=repo, index=index, queries=stop)
        out["stopword_queries"] = stop
        if args.baseline:
            # The baseline searches an index it built itself: the two may differ in schema.
            log("search by the baseline, on an index it built of the same commit ...")
            own = scratch / "baseline_index.sqlite"
            run_step("build", repo=repo, index=own, code=args.baseline)
            out["baseline_search"] = run_step("search", repo=repo, index=own, queries=queries, code=args.baseline)
            out["baseline_search_stopwords"] = run_step(
                "search", repo=repo, index=own, queries=stop, code=args.baseline
            )
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
        elif before:  # drop the benchmark's own commit so the next run starts from the same tip
            subprocess.run(["git", "reset", "-q", "--hard", before], cwd=repo, check=False)
    return out


def measure_cold(repo: Path, scratch: Path, args: argparse.Namespace) -> dict[str, list[dict[str, Any]]]:
    """Floors and cold builds, alternated and repeated: on a shared machine the fastest run of
    each is the one least slowed by somebody else's work."""
    builds = [("", "cold", False), ("", "cold_head", True)]
    if args.baseline:
        builds += [(args.baseline, "baseline_cold", False), (args.baseline, "baseline_cold_head", True)]
    runs: dict[str, list[dict[str, Any]]] = {}
    for n in range(1, args.repeat + 1):
        for head_only in (False, True):
            for trigram in (False, True):
                key = f"floor_{'both' if trigram else 'porter'}{'_head' if head_only else ''}"
                log(f"{key}, run {n} ...")
                db = scratch / f"{key}.sqlite"
                db.unlink(missing_ok=True)
                runs.setdefault(key, []).append(
                    run_step("floor", repo=repo, db=db, trigram=trigram, head_only=head_only)
                )
                db.unlink()
        for code, key, head_only in builds:
            log(f"{key}, run {n} ...")
            index = scratch / f"{key}.sqlite"
            index.unlink(missing_ok=True)
            runs.setdefault(key, []).append(run_step("build", repo=repo, index=index, head_only=head_only, code=code))
            index.unlink()
    return runs


def _git_head(repo: Path) -> str:
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()


# -- the report -------------------------------------------------------------------------
def figures(res: dict[str, Any]) -> dict[str, float]:
    inc, srch = res["incremental"], res["search"]
    copy = float(inc["stages"].get("copy_previous", float("nan")))
    replace = float(inc["stages"].get("replace", 0.0))
    stop = res["search_stopwords"]["api_ms"]
    out = {
        "incremental_s": inc["seconds"],
        "incremental_copy_s": copy,
        "incremental_replace_s": replace,
        "incremental_work_s": inc["seconds"] - copy - replace if not math.isnan(copy) else inc["seconds"],
        "incremental_cpu_s": inc["cpu_seconds"],
        "extracted": inc["summary"]["extracted"],
        "api_p50": percentile(srch["api_ms"], 50),
        "api_p95": percentile(srch["api_ms"], 95),
        "api_cpu_p50": percentile(srch["api_cpu_ms"], 50),
        "api_cpu_p95": percentile(srch["api_cpu_ms"], 95),
        "sql_p50": percentile(srch["sql_ms"], 50),
        "sql_p95": percentile(srch["sql_ms"], 95),
        "stop_p50": percentile(stop, 50),
        "stop_p95": percentile(stop, 95),
    }
    for key in ("floor_porter", "floor_both", "floor_porter_head", "floor_both_head"):
        out[f"{key}_cpu"] = res[key]["cpu_seconds"]
        out[f"{key}_s"] = res[key]["seconds"]
    for build in ("cold", "cold_head", "baseline_cold", "baseline_cold_head"):
        if build not in res:
            continue
        floor = "_head" if build.endswith("_head") else ""
        out[f"{build}_s"] = res[build]["seconds"]
        out[f"{build}_cpu"] = res[build]["cpu_seconds"]
        out[f"{build}_rss_mb"] = res[build]["rss_mb"]
        out[f"{build}_cpu_ratio_a"] = res[build]["cpu_seconds"] / res[f"floor_porter{floor}"]["cpu_seconds"]
        out[f"{build}_cpu_ratio_b"] = res[build]["cpu_seconds"] / res[f"floor_both{floor}"]["cpu_seconds"]
    if "baseline_search" in res:
        out["baseline_api_p50"] = percentile(res["baseline_search"]["api_ms"], 50)
        out["baseline_api_p95"] = percentile(res["baseline_search"]["api_ms"], 95)
        out["baseline_stop_p50"] = percentile(res["baseline_search_stopwords"]["api_ms"], 50)
        out["baseline_stop_p95"] = percentile(res["baseline_search_stopwords"]["api_ms"], 95)
    return out


def report(res: dict[str, Any]) -> str:
    f = figures(res)
    p = res["params"]
    cold, srch = res["cold"], res["search"]
    ok = {
        "cold": f["cold_cpu_ratio_a"] <= TARGETS["build_cpu_ratio"],
        "head": f["cold_head_cpu_ratio_a"] <= TARGETS["head_cpu_ratio"],
        "inc": f["incremental_work_s"] < TARGETS["incremental_s"] and f["extracted"] == 1,
        "p50": f["api_p50"] < TARGETS["p50_ms"],
        "p95": f["api_p95"] < TARGETS["p95_ms"],
        "stop": f["stop_p95"] <= TARGETS["stop_p95_ms"],
        "rss": f["cold_rss_mb"] <= TARGETS["rss_mb"],
    }

    def mark(key: str) -> str:
        return "met" if ok[key] else "**missed**"

    def build_row(key: str, label: str, target: str) -> str:
        return (
            f"| {label} | {f[key + '_cpu']:.2f} s | **{f[key + '_cpu_ratio_a']:.2f}×** | "
            f"{f[key + '_cpu_ratio_b']:.2f}× | {f[key + '_s']:.2f} s | {f[key + '_rss_mb']:.0f} MB | {target} |"
        )

    def floor_row(key: str, label: str) -> str:
        return f"| {label} | {f[key + '_cpu']:.2f} s | | | {f[key + '_s']:.2f} s | {res[key]['rss_mb']:.0f} MB | |"

    rows = [
        floor_row("floor_porter", "floor (a), every version: cat-file + paragraphs into FTS5 porter + optimize"),
        floor_row("floor_both", "floor (b), every version: (a) + trigram table without positions"),
        build_row("cold", "**cold build**, whole history", f"≤ 3× (a): {mark('cold')}"),
    ]
    if "baseline_cold" in res:
        rows.append(build_row("baseline_cold", "cold build by the baseline, whole history", ""))
    rows += [
        floor_row("floor_porter_head", "floor (a), HEAD's blobs"),
        floor_row("floor_both_head", "floor (b), HEAD's blobs"),
        build_row("cold_head", "**cold build of HEAD only** (`history_start = HEAD`)", f"≤ 2× (a): {mark('head')}"),
    ]
    if "baseline_cold_head" in res:
        rows.append(build_row("baseline_cold_head", "cold build of HEAD only by the baseline", ""))
    search_rows = [
        f"| content words, `index.search`, {len(srch['api_ms'])} queries | {f['api_p50']:.1f} / {f['api_p95']:.1f} ms"
        + (f" | {f['baseline_api_p50']:.1f} / {f['baseline_api_p95']:.1f} ms" if "baseline_api_p50" in f else " | —")
        + f" | < 10 / < 50 ms: {mark('p50')} / {mark('p95')} |",
        f"| the same, CPU time of the calling process | {f['api_cpu_p50']:.1f} / {f['api_cpu_p95']:.1f} ms | | |",
        f"| the same, SQL only on an open index | {f['sql_p50']:.1f} / {f['sql_p95']:.1f} ms | | |",
        f"| the {len(res['search_stopwords']['api_ms'])} most frequent words alone | {f['stop_p50']:.0f} /"
        f" {f['stop_p95']:.0f} ms"
        + (f" | {f['baseline_stop_p50']:.0f} / {f['baseline_stop_p95']:.0f} ms" if "baseline_stop_p50" in f else " | —")
        + f" | p95 ≤ 50 ms: {mark('stop')} |",
    ]
    stages = ", ".join(f"{k} {v:.2f} s" for k, v in cold["stages"].items())
    matches = sorted(srch["matches"])
    stop_matches = sorted(res["search_stopwords"]["matches"])
    runs = "; ".join(
        f"{key} " + ", ".join(f"{r['cpu_seconds']:.1f}" for r in measured) + " s"
        for key, measured in res["runs"].items()
    )
    baseline = " The baseline's cold builds and searches ran in the same run." if "baseline_cold" in res else ""
    lines = [
        f"Corpus: {p['docs']:,} Markdown documents, {res['floor_porter_head']['bytes'] / 1e6:.1f} MB at HEAD, "
        f"{p['commits']} commits of {p['files_per_commit']} files each on top (seed {p['seed']}); the cold build "
        f"indexes {cold['summary']['extracted']:,} versions ({res['floor_porter']['bytes'] / 1e6:.1f} MB) into "
        f"{srch['passages']:,} passages ({cold['summary']['passages']:,} at HEAD); index file "
        f"{cold['index_bytes'] / 1e6:.0f} MB.{baseline}",
        "",
        "CPU time is the whole process tree's (the build's process pool and git included), less the "
        "interpreter's start-up; peak memory is the largest sum of RSS over that tree (sampled every 50 ms).",
        "",
        "| step | CPU | ÷ floor (a) | ÷ floor (b) | wall | peak RSS | target |",
        "|---|---|---|---|---|---|---|",
        *rows,
        "",
        f"Peak RSS of the cold build: {f['cold_rss_mb']:.0f} MB (≤ 500 MB: {mark('rss')}). Incremental build, one "
        f"changed file: {f['incremental_s']:.3f} s = index work **{f['incremental_work_s']:.3f} s** + copying the "
        f"previous index file {f['incremental_copy_s']:.3f} s + renaming the new file over it "
        f"{f['incremental_replace_s']:.3f} s; extracted = {f['extracted']}; CPU {f['incremental_cpu_s']:.3f} s "
        f"(work < 1 s, extracted = 1: {mark('inc')}).",
        "",
        "| search, p50 / p95 | this checkout | baseline | target |",
        "|---|---|---|---|",
        *search_rows,
        "",
        f"Every run's CPU seconds (fastest counts): {runs}.  ",
        f"Cold build stages (wall): {stages}.  ",
        f"Content-word queries: 30 one-word, 30 two-word, 20 three consecutive words taken from a document "
        f"(stop words included), 20 one word under a path prefix; words drawn log-uniformly by frequency rank "
        f"from rank {STOPWORD_RANKS} on. Matching passages per query: median {matches[len(matches) // 2]:,}, "
        f"max {matches[-1]:,} of {srch['passages']:,}. The {len(stop_matches)} most frequent words alone match "
        f"{stop_matches[0]:,} to {stop_matches[-1]:,} passages each.",
    ]
    return "\n".join(lines)


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--docs", type=int, default=10_000, help="documents (about 5 kB each)")
    parser.add_argument("--commits", type=int, help="edit commits after the first (default: docs / 50, so 200)")
    parser.add_argument("--files-per-commit", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=2, help="runs of each floor and of the cold build")
    parser.add_argument("--workdir", help="keep the generated repository here and reuse it on the next run")


def run(args: argparse.Namespace) -> Result:
    res = measure(args)
    return Result(report(res), res | {"figures": figures(res)})
