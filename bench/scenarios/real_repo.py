"""A real repository: build, search, cite, verify, check, screenshots and an incremental build of a clone.

Given a clone of any git repository of documents, this works in a scratch copy (the clone is
never written to) and measures, each with the command that produced it:

1. `pincite build` cold (index and site), with the index and site sizes;
2. a few `pincite search` queries (the command's wall time, start-up included);
3. citations of sampled spans at many old first-parent commits, by lines and by quote
   (`indexer.cite`, the function behind `pincite cite`; a few through the CLI for its wall time);
4. `pincite verify` of every citation and `pincite check` of a Markdown file holding them all
   (text forms and permalinks, each with its quote in a blockquote) against HEAD: verdict counts,
   wall time and the git processes started (counted by a `git` wrapper first on PATH);
5. screenshots of the site in chromium at 1280x800 and 390x844: the home page, a document page,
   the version page of a drifted citation (its banner) and the search page with a query;
6. `pincite build` again after one extra commit (incremental).

The clone is an argument (a fetched public repository, so CI never runs this); the section is
one per repository, with its commit.

The drifted citations, with the commit pincite names and what `git log -L` says, are in the JSON
output (`crosscheck`), for checking verdicts by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any

from bench.harness import GIT_IDENTITY, ROOT, GitCounter, checkout_env, log, measure, nonzero, pincite, repository_name
from bench.scenarios import Result

TEXT_SUFFIXES = (".md", ".markdown", ".rst", ".txt", ".adoc")
SITE_URL = "https://example.org/site/"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def du(path: Path) -> tuple[int, int]:
    """Bytes and files under `path` (a file counts as itself)."""
    if path.is_file():
        return path.stat().st_size, 1
    total = files = 0
    for p in path.rglob("*"):
        if p.is_file() and not p.is_symlink():
            total += p.stat().st_size
            files += 1
    return total, files


class Runner:
    """Runs this checkout's pincite CLI in the scratch copy with a git wrapper counting git processes."""

    def __init__(self, repo: Path, work: Path, env: dict[str, str]) -> None:
        self.repo = repo
        self.counter = GitCounter(work)
        self.env = checkout_env(ROOT, **env, PATH=self.counter.path())
        self.commands: list[str] = []
        self.last_calls: dict[str, int] = {}
        self.last_cpu = 0.0

    def run(self, *args: str, ok: tuple[int, ...] = (0,)) -> tuple[float, str, int]:
        """(wall seconds, stdout, git processes) of `pincite ARGS --repo REPO`; its CPU time in `last_cpu`."""
        self.counter.reset()
        measured = measure(pincite(*args, "--repo", str(self.repo)), cwd=ROOT, env=self.env, ok=ok)
        shown = [*args[:3], f"<{len(args) - 3} more arguments>"] if len(args) > 12 else list(args)
        self.commands.append("pincite " + " ".join(shown))
        self.last_calls = self.counter.calls()
        self.last_cpu = measured.cpu_s
        return measured.wall_s, measured.stdout, self.counter.count()


def sample_spans(
    repo: Path, roots: list[str], commits: list[str], per_commit: int, rng: random.Random
) -> list[dict[str, Any]]:
    """Line ranges and quotes of text documents at each commit, half of each kind."""
    spans: list[dict[str, Any]] = []
    for commit in commits:
        paths = [
            p
            for p in git(repo, "ls-tree", "-r", "--name-only", commit, "--", *roots).splitlines()
            if p.endswith(TEXT_SUFFIXES)
        ]
        rng.shuffle(paths)
        taken = 0
        for path in paths:
            if taken >= per_commit:
                break
            try:
                text = git(repo, "show", f"{commit}:{path}")
            except (subprocess.CalledProcessError, UnicodeDecodeError):
                continue
            lines = text.split("\n")
            prose = [
                n
                for n, line in enumerate(lines, 1)
                if len(line.split()) >= 8 and not line.lstrip().startswith(("#", "|", "`", ">", "..", "="))
            ]
            if not prose:
                continue
            first = rng.choice(prose)
            if taken % 2 == 0:
                last = min(first + rng.randint(0, 3), len(lines))
                words = lines[first - 1].split()[:12]
                spans.append(
                    {"kind": "lines", "commit": commit, "path": path, "lines": (first, last), "quote": " ".join(words)}
                )
            else:
                words = lines[first - 1].split()
                start = rng.randint(0, max(0, len(words) - 8))
                quote = " ".join(words[start : start + rng.randint(6, 10)])
                spans.append({"kind": "quote", "commit": commit, "path": path, "quote": quote})
            taken += 1
    return spans


def cite_all(repo: Path, spans: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    import indexer
    from indexer.errors import PinciteError

    cited: list[dict[str, Any]] = []
    times: dict[str, list[float]] = {"lines": [], "quote": []}
    errors: dict[str, int] = {}
    for span in spans:
        started = time.perf_counter()
        try:
            if span["kind"] == "lines":
                c = indexer.cite(span["path"], str(repo), lines=span["lines"], rev=span["commit"], site_url=SITE_URL)
            else:
                c = indexer.cite(span["path"], str(repo), quote=span["quote"], rev=span["commit"], site_url=SITE_URL)
        except PinciteError as exc:
            reason = str(exc).split(":")[0][:60]
            errors[reason] = errors.get(reason, 0) + 1
            continue
        times[span["kind"]].append(time.perf_counter() - started)
        cited.append({**span, "citation": c.citation.text_form(), "permalink": c.permalink})
    stats = {kind: _percentiles(values) for kind, values in times.items()}
    stats["errors"] = errors
    return cited, stats


def _percentiles(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"n": 0}
    ordered = sorted(values)
    return {
        "n": len(ordered),
        "p50_ms": round(ordered[len(ordered) // 2] * 1000, 1),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))] * 1000, 1),
        "max_ms": round(ordered[-1] * 1000, 1),
    }


def notes_markdown(cited: list[dict[str, Any]]) -> str:
    """Every citation with its quote in a blockquote; every third one as a permalink."""
    blocks = ["# Citations into a real repository", ""]
    for i, c in enumerate(cited):
        quote = c["quote"]  # as written: check compares Markdown markup and backslashes literally
        ref = f"<{c['permalink']}>" if i % 3 == 2 and c["permalink"] else c["citation"]
        blocks += [f"> {quote}", "", f"— {ref}", ""]
    return "\n".join(blocks)


def crosscheck(repo: Path, record: dict[str, Any], head: str, history: list[str]) -> dict[str, Any]:
    """What git's reverse blame says about a drifted citation's lines, for comparison by hand.

    `git blame --reverse --first-parent -L a,b PINNED..HEAD -- PATH` names, per line, the last
    commit in which the line still stood; the first-parent commit after the earliest of them is
    the one that changed the span (insertions between the lines are not seen by blame).
    """
    m = re.match(r"(.+)@([0-9a-f]{40})#L(\d+)(?:-L(\d+))?$", record["parsed"])
    resolution = record.get("resolution") or {}
    out: dict[str, Any] = {
        "citation": record["parsed"],
        "changed_by": (resolution.get("changed_by") or {}).get("commit"),
        "new_path": resolution.get("new_path"),
    }
    if not m:
        return out
    path, commit, a, b = m.group(1), m.group(2), m.group(3), m.group(4) or m.group(3)
    position = {c: i for i, c in enumerate(history)}  # newest first
    try:
        blame = git(
            repo, "blame", "--reverse", "--first-parent", "--porcelain", f"-L{a},{b}", f"{commit}..{head}", "--", path
        )
    except subprocess.CalledProcessError as exc:
        out["blame_error"] = exc.stderr.strip().splitlines()[-1:]
        return out
    survivors = {line.split()[0] for line in blame.splitlines() if re.match(r"^[0-9a-f]{40} \d+ \d+", line)}
    oldest = max(survivors, key=lambda c: position.get(c, -1))
    out["last_commit_with_all_lines"] = oldest
    idx = position.get(oldest)
    out["blame_changed_by"] = history[idx - 1] if idx else None
    out["agree"] = out["blame_changed_by"] == out["changed_by"]
    return out


def screenshots(site: Path, shots: Path, pages: dict[str, str]) -> list[str]:
    import http.server

    from playwright.sync_api import sync_playwright

    from bench.browser import launch

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), lambda *a: Quiet(*a, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    shots.mkdir(parents=True, exist_ok=True)
    written: list[str] = []
    errors: list[str] = []
    try:
        with sync_playwright() as p:
            browser = launch(p)
            for label, (width, height) in {"desktop": (1280, 800), "mobile": (390, 844)}.items():
                page = browser.new_page(viewport={"width": width, "height": height})
                page.on("pageerror", lambda e: errors.append(str(e)))
                for name, rel in pages.items():
                    page.goto(base + rel, wait_until="networkidle")
                    if name == "search":
                        page.wait_for_timeout(1500)
                    page.wait_for_timeout(300)
                    target = shots / f"{name}-{label}.png"
                    page.screenshot(path=str(target))
                    written.append(str(target))
                page.close()
            browser.close()
        written += [f"page error: {e}" for e in errors[:5]]
    finally:
        server.shutdown()
        server.server_close()
    return written


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("clone", type=Path, help="a clone of the repository (not modified)")
    parser.add_argument("--roots", default=".", help="PINCITE_ROOTS (default: the whole repository)")
    parser.add_argument("--history-start", default="", help="PINCITE_HISTORY_START (default: the whole history)")
    parser.add_argument("--work", type=Path, help="scratch folder (default: /tmp/pincite-real/<name>)")
    parser.add_argument("--shots", type=Path, default=Path("/tmp/real-shots"), help="where the PNGs go")
    parser.add_argument("--commits", type=int, default=24, help="old commits to cite at")
    parser.add_argument("--per-commit", type=int, default=10, help="spans cited at each of them")
    parser.add_argument("--queries", nargs="*", default=["license", "backwards compatibility", "error handling"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-shots", action="store_true")
    parser.add_argument(
        "--reuse", action="store_true", help="keep the scratch copy and its cold build from a run before"
    )
    parser.add_argument("--json-out", type=Path, help="also write the result here")


def run(args: argparse.Namespace) -> Result:
    result = measure_clone(args)
    return Result(markdown(result), result, subject=result["name"], notes=[result["note"]])


def measure_clone(args: argparse.Namespace) -> dict[str, Any]:

    clone = args.clone.resolve()
    work = (args.work or Path("/tmp/pincite-real") / clone.name).resolve()
    repo = work / "repo"
    reuse = args.reuse and (work / "cold.json").exists()
    if not reuse:
        if work.exists():
            shutil.rmtree(work)
        work.mkdir(parents=True)
        subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(clone), str(repo)], check=True)
    else:
        subprocess.run(["git", "-C", str(repo), "reset", "--quiet", "--hard", "origin/HEAD"], check=True)
    env = {
        "PINCITE_ROOTS": args.roots,
        "PINCITE_HISTORY_START": args.history_start,
        "PINCITE_INDEX_PATH": str(work / "index.sqlite"),
        "PINCITE_SITE_DIR": str(work / "site"),
        "PINCITE_SITE_URL": SITE_URL,
    }
    os.environ.update(env)  # for the in-process citations
    run = Runner(repo, work, env)
    name = repository_name(clone)
    head = git(repo, "rev-parse", "HEAD").strip()
    result: dict[str, Any] = {
        "name": name,
        "head": head,
        "roots": args.roots,
        "history_start": args.history_start or None,
        "note": f"Repository: {name} at commit {head[:12]}, roots `{args.roots}`"
        + (f", history from `{args.history_start}`" if args.history_start else ", the whole history")
        + ".",
    }
    history = git(
        repo, "rev-list", "--first-parent", "HEAD" if not args.history_start else f"{args.history_start}^..HEAD"
    ).split()
    result["first_parent_commits"] = len(history)

    # 1. cold build
    if reuse:
        seconds, out, calls = json.loads((work / "cold.json").read_text())
        run.run("build", "--json")  # back to the clone's HEAD after an earlier incremental build
    else:
        seconds, out, calls = run.run("build", "--json")
        (work / "cold.json").write_text(json.dumps([seconds, out, calls]))
    summary = json.loads(out)
    index_bytes, _ = du(work / "index.sqlite")
    site_bytes, site_files = du(work / "site")
    result["cold_build"] = {
        "seconds": round(seconds, 1),
        "git_processes": calls,
        "documents": summary.get("documents"),
        "versions": summary.get("versions"),
        "extracted": summary.get("extracted"),
        "skipped": len(summary.get("skipped") or []),
        "stages": summary.get("stages"),
        "site": summary.get("site"),
        "index_mb": round(index_bytes / 1e6, 1),
        "site_mb": round(site_bytes / 1e6, 1),
        "site_files": site_files,
        "git_commands": run.last_calls,
    }
    if not reuse:
        result["cold_build"]["cpu_seconds"] = round(run.last_cpu, 1)
    log(f"cold build {seconds:.1f} s")

    # 2. search
    result["search"] = []
    for query in args.queries:
        seconds, out, _ = run.run("search", query, "--json", "--limit", "10")
        hits = json.loads(out)
        top = hits[0]["citation"] if hits else None
        result["search"].append({"query": query, "seconds": round(seconds, 2), "hits": len(hits), "top": top})

    # 3. citations at old commits
    rng = random.Random(args.seed)
    old = history[len(history) // 20 :]  # skip the newest 5%: spans there rarely drift
    step = max(1, len(old) // args.commits)
    commits = old[::step][: args.commits]
    spans = sample_spans(repo, args.roots.replace(",", " ").split(), commits, args.per_commit, rng)
    started = time.perf_counter()
    cited, cite_stats = cite_all(repo, spans)
    cite_stats["seconds_total"] = round(time.perf_counter() - started, 2)
    cli_times = []
    for c in cited[:6]:
        spec = ["--lines", f"{c['lines'][0]}-{c['lines'][1]}"] if c["kind"] == "lines" else ["--quote", c["quote"]]
        seconds, _, _ = run.run("cite", c["path"], *spec, "--rev", c["commit"], "--format", "json")
        cli_times.append(seconds)
    cite_stats["cli_seconds"] = [round(s, 2) for s in cli_times]
    result["cite"] = {
        **cite_stats,
        "sampled": len(spans),
        "cited": len(cited),
        "commits": len({c["commit"] for c in cited}),
    }
    log(f"cited {len(cited)} of {len(spans)}")

    # 4. verify and check against HEAD
    seconds, out, calls = run.run("verify", "--json", *[c["citation"] for c in cited], ok=(0, 7))
    verdicts = json.loads(out)
    counts: dict[str, int] = {}
    for v in verdicts:
        counts[v["status"]] = counts.get(v["status"], 0) + 1
    result["verify"] = {
        "seconds": round(seconds, 2),
        "git_processes": calls,
        "verdicts": counts,
        "git_commands": run.last_calls,
    }
    notes = work / "notes" / "citations.md"
    notes.parent.mkdir(exist_ok=True)
    notes.write_text(notes_markdown(cited), encoding="utf-8")
    seconds, out, calls = run.run("check", "--json", str(notes), ok=(0, 7))
    report = json.loads(out)
    result["check"] = {
        "seconds": round(seconds, 2),
        "git_processes": calls,
        "git_commands": run.last_calls,
        "summary": report.get("summary"),
    }
    (work / "check.json").write_text(out)
    records = report.get("records", [])
    drifted = [r for r in records if r.get("verdict") == "drifted"]
    moved = [
        r
        for r in records
        if r.get("verdict") == "verified"
        and (r.get("resolution") or {}).get("new_path") not in (None, r["parsed"].split("@")[0])
    ]
    head = result["head"]
    result["crosscheck"] = [crosscheck(repo, r, head, history) for r in drifted[:12] if "#L" in r["parsed"]]
    result["renamed_examples"] = [{"citation": r["parsed"], "now": r["resolution"].get("relocated")} for r in moved[:5]]
    renamed_drifted = [r for r in drifted if r["resolution"].get("new_path") not in (None, r["parsed"].split("@")[0])]
    result["check"]["verified_in_renamed_file"] = len(moved)
    result["check"]["drifted_in_renamed_file"] = len(renamed_drifted)
    log(f"check {seconds:.1f} s")

    # 5. screenshots
    if not args.no_shots:
        pages = {"home": "index.html", "search": "search.html?q=" + urllib.parse.quote(args.queries[0])}
        docs = sorted((work / "site" / "doc").rglob("*.html"))
        if docs:
            pages["document"] = str(docs[len(docs) // 2].relative_to(work / "site"))
        lined = [r for r in drifted if "#L" in r["parsed"]]
        if lined:
            first = next(c for c in cited if c["citation"] == lined[0]["parsed"])
            if first["permalink"]:
                pages["drifted"] = first["permalink"].removeprefix(SITE_URL)
        result["screenshots"] = {"pages": pages, "files": screenshots(work / "site", args.shots, pages)}

    # 6. incremental build after one extra commit
    readme = next(
        (
            p
            for p in git(repo, "ls-files", "--", *args.roots.replace(",", " ").split()).splitlines()
            if p.endswith(TEXT_SUFFIXES)
        ),
        None,
    )
    assert readme is not None
    with open(repo / readme, "a", encoding="utf-8") as f:
        f.write("\nOne more line for the incremental build.\n")
    git(repo, *GIT_IDENTITY, "commit", "-qam", "bench: one more line")
    seconds, out, calls = run.run("build", "--json")
    summary = json.loads(out)
    result["incremental_build"] = {
        "seconds": round(seconds, 1),
        "git_processes": calls,
        "extracted": summary.get("extracted"),
        "stages": summary.get("stages"),
        "site": summary.get("site"),
        "changed": readme,
        "git_commands": run.last_calls,
    }
    result["incremental_build"]["cpu_seconds"] = round(run.last_cpu, 1)
    result["commands"] = run.commands
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=2))
    return result


def markdown(r: dict[str, Any]) -> str:
    cold, inc, cite, verify, check = r["cold_build"], r["incremental_build"], r["cite"], r["verify"], r["check"]
    agree = [c for c in r.get("crosscheck", []) if "agree" in c]
    lines = [
        f"{r['first_parent_commits']:,} first-parent commits indexed.",
        "",
        "| step | figures |",
        "|---|---|",
        f"| cold `pincite build` (index + site) | {cold['seconds']} s wall, {cold.get('cpu_seconds', '—')} s CPU, "
        f"{cold['git_processes']} git processes; {cold['documents']} documents, {cold['versions']} versions, "
        f"{cold['skipped']} skipped; index {cold['index_mb']} MB, site {cold['site_mb']} MB in "
        f"{cold['site_files']:,} files |",
        *[f'| `pincite search "{s["query"]}"` | {s["seconds"]} s, {s["hits"]} hits |' for s in r["search"]],
        f"| citations at {cite['commits']} old commits (`indexer.cite`) | {cite['cited']} of {cite['sampled']} "
        f"spans cited; by lines p50 {cite['lines'].get('p50_ms', '—')} ms, by quote p50 "
        f"{cite['quote'].get('p50_ms', '—')} ms, p95 {cite['quote'].get('p95_ms', '—')} ms; `pincite cite` "
        f"{', '.join(str(s) for s in cite['cli_seconds'])} s |",
        f"| `pincite verify` of every citation against HEAD | {verify['seconds']} s, {verify['git_processes']} git "
        f"processes; {nonzero(verify['verdicts'])} |",
        f"| `pincite check` of a note holding them all | {check['seconds']} s, {check['git_processes']} git "
        f"processes; {nonzero(check['summary'])}; in a renamed file: "
        f"{check['verified_in_renamed_file']} verified, {check['drifted_in_renamed_file']} drifted |",
        f"| `pincite build` after one more commit | {inc['seconds']} s wall, {inc['cpu_seconds']} s CPU, "
        f"{inc['git_processes']} git processes, extracted {inc['extracted']} |",
    ]
    if agree:
        lines += [
            "",
            f"Drifted citations checked against `git blame --reverse`: the changing commit agrees for "
            f"{sum(1 for c in agree if c['agree'])} of {len(agree)}.",
        ]
    return "\n".join(lines)
