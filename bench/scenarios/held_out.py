"""Held-out verdicts: `pincite check` of sampled citations on a real history, against git's own diff.

Citations nobody here wrote: line ranges of text documents at commits drawn at random from the
first-parent history of a clone (each with a few words of its first prose line as its quote), checked
by `pincite check --json` against HEAD after `pincite build --no-site`. The ground truth is computed
here without pincite's drift code, from git alone:

1. where the cited path leads at HEAD: one `git log --first-parent -M50% --name-status` of the whole
   history, the path followed commit by commit (a rename carries it on, a deletion ends it);
2. whether the cited lines changed: `git diff -U0` of the pinned blob against the blob at HEAD.
   A hunk touches the span when it removes or replaces a cited line or inserts lines between two
   of them; no hunk touching means `verified`, a touching hunk or a deleted path `drifted`.
   A verified span's lines are then compared, as text, with the lines at HEAD the hunks move
   them to: the ground truth checks itself;
3. the quote stands in the cited lines by construction: `matched` is the only right quote verdict.

For drifted citations, `git blame --reverse` names the last commit that held every cited line;
the first-parent commit after it is compared with the `changed_by` pincite names (blame does not
see lines inserted between cited lines, so a disagreement there is read by hand).

    python -m bench held-out <clone> --samples 200
    python -m bench held-out <clone of python/peps> --history-start <commit> --samples 200
    python -m bench held-out <clone> --samples 1000 --cost   # and the check's CPU against git's diffs

The clone is never written to: the run works in a local clone under the scratch folder.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.harness import ROOT, checkout_env, log, measure, pincite, repository_name
from bench.scenarios import Result
from bench.scenarios.real_repo import crosscheck

TEXT_SUFFIXES = (".md", ".markdown", ".rst", ".txt", ".adoc")
PROSE_WORDS = 8  # a quoted line has at least this many words
MARKUP_STARTS = ("#", "|", "`", ">", "..", "=", "-", "*", "+", "[", "<", ":")
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.M)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def git_bytes(repo: Path, *args: str) -> bytes | None:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True)
    return done.stdout if done.returncode == 0 else None


@dataclass(frozen=True)
class Sample:
    commit: str
    path: str
    first: int
    last: int
    quote: str

    @property
    def text_form(self) -> str:
        lines = f"#L{self.first}" if self.first == self.last else f"#L{self.first}-L{self.last}"
        return f"{self.path}@{self.commit}{lines}"


# -- sampling -----------------------------------------------------------------------------
def sample(repo: Path, roots: list[str], commits: list[str], count: int, rng: random.Random) -> list[Sample]:
    """`count` citations at commits drawn from `commits`: 1–6 lines from a prose line, its words as the quote."""
    found: list[Sample] = []
    tries = 0
    while len(found) < count and tries < count * 20:
        tries += 1
        commit = rng.choice(commits)
        paths = [p for p in git(repo, "ls-tree", "-r", "--name-only", commit, "--", *roots).splitlines()]
        paths = [p for p in paths if p.endswith(TEXT_SUFFIXES)]
        if not paths:
            continue
        path = rng.choice(paths)
        raw = git_bytes(repo, "cat-file", "blob", f"{commit}:{path}")
        try:
            text = (raw or b"").decode("utf-8")
        except UnicodeDecodeError:
            continue
        if "\r" in text:
            continue  # line ends other than LF: git's line numbers and a text's lines may differ
        lines = text.split("\n")
        prose = [
            n
            for n, line in enumerate(lines, 1)
            if len(line.split()) >= PROSE_WORDS and not line.lstrip().startswith(MARKUP_STARTS)
        ]
        if not prose:
            continue
        first = rng.choice(prose)
        last = min(first + rng.randint(0, 5), len(lines) - (1 if text.endswith("\n") else 0))
        words = lines[first - 1].split()
        start = rng.randint(0, max(0, len(words) - 6))
        quote = " ".join(words[start : start + rng.randint(5, 10)])
        candidate = Sample(commit, path, first, max(first, last), quote)
        if candidate not in found:
            found.append(candidate)
    return found


def note(samples: list[Sample]) -> str:
    blocks = ["# Held-out citations", ""]
    for s in samples:
        blocks += [f"> {s.quote}", "", f"— {s.text_form}", ""]
    return "\n".join(blocks)


# -- ground truth from git alone ----------------------------------------------------------
def path_changes(repo: Path) -> dict[str, list[tuple[str, str, str | None]]]:
    """Per first-parent commit, its (status, path, new path) changes by git's rename detection (-M50%)."""
    out = git(
        repo, "log", "--first-parent", "--diff-merges=first-parent", "-M50%", "--name-status", "-z", "--format=%x01%H"
    )
    changes: dict[str, list[tuple[str, str, str | None]]] = {}
    for chunk in out.split("\x01")[1:]:
        tokens = chunk.split("\0")
        sha, rest = tokens[0].strip(), [t.lstrip("\n") for t in tokens[1:]]
        entries: list[tuple[str, str, str | None]] = []
        i = 0
        while i < len(rest):
            status = rest[i]
            if not status:
                i += 1
                continue
            if status[0] in "RC":
                entries.append((status[0], rest[i + 1], rest[i + 2]))
                i += 3
            else:
                entries.append((status[0], rest[i + 1], None))
                i += 2
        changes[sha] = entries
    return changes


def path_at_head(path: str, after: list[str], changes: dict[str, list[tuple[str, str, str | None]]]) -> str | None:
    """Where `path` leads through the commits `after` (oldest first): its path at HEAD, None when deleted."""
    current = path
    for sha in after:
        for status, old, new in changes.get(sha, []):
            if old != current:
                continue
            if status == "R" and new is not None:
                current = new
                break
            if status == "D":
                return None
    return current


def hunks(repo: Path, old: str, new: str) -> list[tuple[int, int, int, int]]:
    diff = git(repo, "diff", "-U0", "--no-color", "--no-ext-diff", "--no-textconv", old, new)
    return [(int(a), int(b) if b else 1, int(c), int(d) if d else 1) for a, b, c, d in _HUNK.findall(diff)]


def truth(repo: Path, s: Sample, head: str, after: list[str], changes: dict[str, Any]) -> dict[str, Any]:
    """The verdict git's own diff gives the sample, and for `verified` whether the moved lines read the same."""
    now = path_at_head(s.path, after, changes)
    if now is None:
        return {"verdict": "drifted", "why": "deleted", "path": None}
    found = hunks(repo, f"{s.commit}:{s.path}", f"{head}:{now}")
    shift = 0
    touched = False
    for old_start, old_count, _new_start, new_count in found:
        if old_count == 0:  # an insertion after line old_start
            if old_start < s.first:
                shift += new_count
            elif old_start < s.last:
                touched = True
        elif old_start + old_count - 1 < s.first:
            shift += new_count - old_count
        elif old_start <= s.last:
            touched = True
    if touched:
        return {"verdict": "drifted", "why": "a hunk touches the lines", "path": now}
    old_lines = git(repo, "cat-file", "blob", f"{s.commit}:{s.path}").split("\n")[s.first - 1 : s.last]
    new_lines = git(repo, "cat-file", "blob", f"{head}:{now}").split("\n")[s.first - 1 + shift : s.last + shift]
    return {
        "verdict": "verified",
        "path": now,
        "lines": [s.first + shift, s.last + shift],
        "same_text": old_lines == new_lines,
    }


# -- the run ------------------------------------------------------------------------------
def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("clone", type=Path, help="a clone of the repository (not modified)")
    parser.add_argument("--roots", default=".", help="PINCITE_ROOTS (default: the whole repository)")
    parser.add_argument("--history-start", default="", help="PINCITE_HISTORY_START (default: the whole history)")
    parser.add_argument("--name", help="owner/name of the repository (default: from the clone's origin)")
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--work", type=Path, help="scratch folder kept after the run (default: a temporary one)")
    parser.add_argument(
        "--cost",
        action="store_true",
        help="also measure the check's CPU against git diffing the same blob pairs (best of 3 each)",
    )


def run(args: argparse.Namespace) -> Result:
    if args.work:
        args.work.mkdir(parents=True, exist_ok=True)
        return _run(args, args.work)
    with tempfile.TemporaryDirectory(prefix="pincite-held-out-") as folder:
        return _run(args, Path(folder))


def _run(args: argparse.Namespace, work: Path) -> Result:
    repo = work / "repo"
    if not repo.exists():
        subprocess.run(["git", "clone", "-q", str(args.clone.resolve()), str(repo)], check=True)
    head = git(repo, "rev-parse", "HEAD").strip()
    roots = args.roots.replace(",", " ").split()
    settings = {"PINCITE_ROOTS": args.roots}
    if args.history_start:
        settings["PINCITE_HISTORY_START"] = args.history_start
    env = checkout_env(ROOT, **settings)
    built = measure(pincite("build", "--no-site", "--repo", str(repo)), cwd=ROOT, env=env)
    log(f"built in {built.wall_s:.0f} s")
    history = git(repo, "rev-list", "--first-parent", "HEAD").split()  # newest first
    if args.history_start:
        start = git(repo, "rev-parse", args.history_start).strip()
        history = history[: history.index(start) + 1]
    rng = random.Random(args.seed)
    samples = sample(repo, roots, history[1:], args.samples, rng)
    notes = work / "notes" / "held-out.md"
    notes.parent.mkdir(exist_ok=True)
    notes.write_text(note(samples), encoding="utf-8")
    checked = measure(pincite("check", "--json", str(notes), "--repo", str(repo)), cwd=ROOT, env=env, ok=(0, 7))
    report = json.loads(checked.stdout)
    records = {r["parsed"]: r for r in report["records"]}
    changes = path_changes(repo)
    position = {sha: i for i, sha in enumerate(history)}
    rows: list[dict[str, Any]] = []
    for s in samples:
        after = list(reversed(history[: position[s.commit]]))  # the commits after the pinned one, oldest first
        expected = truth(repo, s, head, after, changes)
        record = records.get(s.text_form, {})
        resolution = record.get("resolution") or {}
        rows.append(
            {
                "citation": s.text_form,
                "truth": expected,
                "verdict": record.get("verdict"),
                "quote_verdict": record.get("quote_verdict"),
                "new_path": resolution.get("new_path"),
                "relocated": resolution.get("relocated"),
            }
        )
    if args.cost:
        pairs = [(f"{s.commit}:{s.path}", f"{head}:{r['truth']['path']}") for s, r in zip(samples, rows, strict=True)]
        cost = diff_cost(repo, [p for p, r in zip(pairs, rows, strict=True) if r["truth"]["path"]], notes, env, work)
    drifted = [records[r["citation"]] for r in rows if r["verdict"] == "drifted" and r["citation"] in records]
    blamed = [crosscheck(repo, r, head, history) for r in drifted[:20]]
    figures = summarize(rows, blamed)
    figures.update(
        repository=args.name or repository_name(args.clone),
        head=head,
        first_parent_commits=len(history),
        build_seconds=round(built.wall_s, 1),
        check_seconds=round(checked.wall_s, 2),
        rows=rows,
        blame=blamed,
    )
    if args.cost:
        figures["cost"] = cost
    notes_lines = [
        f"Repository: {figures['repository']} at commit {head}, roots `{args.roots}`, "
        f"{len(history):,} first-parent commits indexed"
        + (f" (from {args.history_start[:12]})" if args.history_start else " (the whole history)")
        + f"; seed {args.seed}."
    ]
    subject = figures["repository"] + (", the check's CPU against git's diff" if args.cost else "")
    return Result(markdown(figures), figures, subject=subject, notes=notes_lines)


def diff_cost(repo: Path, pairs: list[tuple[str, str]], notes: Path, env: dict[str, str], work: Path) -> dict[str, Any]:
    """CPU seconds (best of 3, process trees) of `pincite check` of the note, of its process floor,
    of one `git diff` process per blob pair, and of one batched `git diff` of all the pairs (two
    trees made with `git mktree`, one entry per pair, diffed once)."""
    blobs = git(repo, "rev-parse", *[side for pair in pairs for side in pair]).split()
    olds, news = blobs[0::2], blobs[1::2]
    bare = work / "bare-diffs.sh"
    bare.write_text(
        "".join(
            f"git -C {repo} diff -U0 --no-color --no-ext-diff {a} {b} >/dev/null\n"
            for a, b in zip(olds, news, strict=True)
        ),
        encoding="utf-8",
    )
    listing = {
        side: "".join(f"100644 blob {sha}\tpair{n:05d}\n" for n, sha in enumerate(shas))
        for side, shas in (("old", olds), ("new", news))
    }
    for side, text in listing.items():
        (work / f"{side}.tree").write_text(text, encoding="utf-8")
    batched = work / "batched-diff.sh"
    batched.write_text(
        f"old=$(git -C {repo} mktree --missing < {work / 'old.tree'})\n"
        f"new=$(git -C {repo} mktree --missing < {work / 'new.tree'})\n"
        f"git -C {repo} diff -U0 --no-color --no-ext-diff --no-renames $old $new >/dev/null\n",
        encoding="utf-8",
    )

    def best(argv: list[str], ok: tuple[int, ...] = (0,)) -> float:
        return min(measure(argv, cwd=ROOT, env=env, ok=ok).cpu_s for _ in range(3))

    check = best(pincite("check", str(notes), "--repo", str(repo)), ok=(0, 7))
    floor = best(pincite("--version"))
    figures = {
        "pairs": len(pairs),
        "distinct_pairs": len(set(zip(olds, news, strict=True))),
        "check_cpu": round(check, 3),
        "floor_cpu": round(floor, 3),
        "bare_diffs_cpu": round(best(["sh", str(bare)]), 3),
        "batched_diff_cpu": round(best(["sh", str(batched)]), 3),
    }
    log(f"cost: {figures}")
    return figures


def summarize(rows: list[dict[str, Any]], blamed: list[dict[str, Any]]) -> dict[str, Any]:
    agree = [r for r in rows if r["verdict"] == r["truth"]["verdict"]]
    moved_right = [
        r
        for r in rows
        if r["truth"]["verdict"] == "verified"
        and r["verdict"] == "verified"
        and r["relocated"]
        and r["relocated"].startswith(f"{r['truth']['path']}@")
        and _lines(r["relocated"]) == tuple(r["truth"]["lines"])
    ]
    by_truth: dict[str, int] = {}
    for r in rows:
        by_truth[r["truth"]["verdict"]] = by_truth.get(r["truth"]["verdict"], 0) + 1
    return {
        "samples": len(rows),
        "agree": len(agree),
        "truth": by_truth,
        "verified_relocated_right": len(moved_right),
        "truth_verified": by_truth.get("verified", 0),
        "truth_self_check": sum(1 for r in rows if r["truth"].get("same_text") is False),
        "renamed": sum(1 for r in rows if r["truth"]["path"] not in (None, r["citation"].split("@")[0])),
        "quotes_matched": sum(1 for r in rows if r["quote_verdict"] == "matched"),
        "disagreements": [r for r in rows if r["verdict"] != r["truth"]["verdict"]],
        "blame_agree": sum(1 for b in blamed if b.get("agree")),
        "blame_compared": sum(1 for b in blamed if "agree" in b),
    }


def _lines(text_form: str) -> tuple[int, int] | None:
    m = re.search(r"#L(\d+)(?:-L(\d+))?$", text_form)
    return (int(m.group(1)), int(m.group(2) or m.group(1))) if m else None


def markdown(f: dict[str, Any]) -> str:
    truth = ", ".join(f"{n} {verdict}" for verdict, n in sorted(f["truth"].items()))
    lines = [
        "| figure | count |",
        "|---|---|",
        f"| citations sampled (ground truth: {truth}) | {f['samples']} |",
        f"| pincite's verdict agrees with git's diff | {f['agree']} of {f['samples']} |",
        f"| verified and relocated to the lines git's hunks give | {f['verified_relocated_right']} of "
        f"{f['truth_verified']} |",
        f"| cited path renamed on the way to HEAD | {f['renamed']} |",
        f"| quotes `matched` (the only right quote verdict) | {f['quotes_matched']} of {f['samples']} |",
        f"| drifted: `changed_by` agrees with `git blame --reverse` | {f['blame_agree']} of {f['blame_compared']} |",
        f"| ground truth's own check (a verified span's text differs at HEAD) | {f['truth_self_check']} |",
        "",
        f"`pincite build --no-site` {f['build_seconds']} s; `pincite check --json` of the note {f['check_seconds']} s.",
    ]
    cost = f.get("cost")
    if cost:
        net = cost["check_cpu"] - cost["floor_cpu"]
        lines += [
            "",
            f"CPU, best of 3, whole process trees: `pincite check` of the {f['samples']} citations "
            f"{cost['check_cpu']:.2f} s ({net:.2f} s above the {cost['floor_cpu']:.2f} s of `pincite --version`); "
            f"{cost['pairs']} bare `git diff` processes of the same blob pairs ({cost['distinct_pairs']} distinct) "
            f"{cost['bare_diffs_cpu']:.2f} s; one batched `git diff` of them (two `git mktree`, one diff) "
            f"{cost['batched_diff_cpu']:.2f} s. Ratios: check / bare diffs "
            f"{cost['check_cpu'] / cost['bare_diffs_cpu']:.2f}, "
            f"check / batched diff {cost['check_cpu'] / cost['batched_diff_cpu']:.1f} "
            f"({net / cost['batched_diff_cpu']:.1f} above the floor).",
        ]
    for d in f["disagreements"][:10]:
        lines.append(f"- disagreement: `{d['citation']}`: pincite {d['verdict']}, git {d['truth']}")
    return "\n".join(lines)
