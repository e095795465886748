"""What every benchmark scenario measures with, written once.

- `measure`: run one process to its end; its wall time, the CPU time of its whole process tree
  (the build's pool workers and git included) and the peak summed RSS (and, if asked, PSS) of
  that tree. Pool workers that outlive their parent are re-parented to this process (it makes
  itself their "child subreaper"), and this process waits for each of them, so their CPU time
  reaches `getrusage(RUSAGE_CHILDREN)`: plain rusage of the measured process would miss it.
- `checkout_env`, `in_checkout`, `step`: run another checkout of pincite (the baseline) with
  `PYTHONPATH` on it and its folder as the working folder (`python -c`/`-m` put the working
  folder first on the path), while the benchmark's own code stays this checkout's.
- `machine`: the machine description every section of BENCHMARKS.md carries.
- `GitCounter`: a `git` wrapper first on PATH that logs each git command pincite starts.
- `percentile`, `ratio`, `alternate`: figures that compare like with like on a shared machine.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import platform
import shutil
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent.parent  # this checkout: the benchmark's code and the pincite measured
_T = TypeVar("_T")
# Who commits in the repositories a benchmark makes: as options of a git command, and as environment.
GIT_IDENTITY = ("-c", "user.name=bench", "-c", "user.email=bench@example.org")
GIT_IDENTITY_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.org",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.org",
}


# -- the machine --------------------------------------------------------------------------
def machine() -> dict[str, str]:
    """CPU, cores, memory, OS, Python, SQLite, git and the load average now."""
    cpu = platform.processor() or platform.machine()
    memory = "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            cpu = next((line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")), cpu)
        with open("/proc/meminfo", encoding="utf-8") as handle:
            memory = f"{int(handle.readline().split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    git_version = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()
    return {
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "memory": memory,
        "os": platform.platform(),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "git": git_version.replace("git version ", ""),
        "load average": load(),
    }


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def describe(info: dict[str, str]) -> str:
    return "; ".join(f"{key} {value}" for key, value in info.items())


def commit_of(checkout: Path) -> str:
    """The checkout's HEAD commit, `+changes` when the measured code (package, templates) differs from it."""
    head = subprocess.run(["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True)
    if head.returncode != 0:
        return "unknown"
    dirty = subprocess.run(
        ["git", "-C", str(checkout), "status", "--porcelain", "--", "indexer", "site_templates"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    return head.stdout.strip()[:12] + ("+changes" if dirty else "")


def repository_name(clone: Path) -> str:
    """`owner/name` from a clone's origin URL, else the folder's name: the subject of a real-repository section."""
    import re

    url = subprocess.run(["git", "-C", str(clone), "remote", "get-url", "origin"], capture_output=True, text=True)
    found = re.search(r"[:/]([^/:]+/[^/]+?)(?:\.git)?/?$", url.stdout.strip())
    return found.group(1) if url.returncode == 0 and found else clone.name


# -- other checkouts ----------------------------------------------------------------------
@dataclass(frozen=True)
class Checkout:
    """A pincite source tree measured by a scenario: this one, or the baseline given with --baseline."""

    name: str
    path: Path


def checkouts(baseline: Path | None) -> list[Checkout]:
    """The baseline first (when given), then this checkout."""
    found = [Checkout("this", ROOT)]
    if baseline is not None:
        found.insert(0, Checkout("baseline", baseline.resolve()))
    return found


def checkout_env(checkout: Path, **settings: str) -> dict[str, str]:
    """This environment with `checkout` on PYTHONPATH, pincite's own PINCITE_* settings dropped, `settings` added."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PINCITE_")}
    return {**env, "PYTHONPATH": str(checkout), **settings}


def pincite(*args: str) -> list[str]:
    """The command line of `pincite ARGS`, run by whichever checkout PYTHONPATH names."""
    return [sys.executable, "-m", "indexer.cli.main", *args]


def in_checkout(checkout: Path, code: str, *args: str, cwd: Path | None = None, **settings: str) -> Any:
    """Run Python `code` with `checkout`'s pincite; the JSON it prints last, decoded."""
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd or checkout,
        env=checkout_env(checkout, **settings),
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise SystemExit(f"a run with the pincite of {checkout} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# Runs a function of a bench module in a child process: bench (and tests) from this checkout,
# `indexer` from the checkout measured. The function imports indexer itself, after this.
_STEP = """
import importlib, importlib.util, json, sys, types
root = sys.argv[1]
init, where = root + "/bench/__init__.py", [root + "/bench"]
spec = importlib.util.spec_from_file_location("bench", init, submodule_search_locations=where)
bench = importlib.util.module_from_spec(spec); sys.modules["bench"] = bench; spec.loader.exec_module(bench)
tests = types.ModuleType("tests"); tests.__path__ = [root + "/tests"]; sys.modules["tests"] = tests
module, name = sys.argv[2].split(":")
print(json.dumps(getattr(importlib.import_module(module), name)(**json.loads(sys.argv[3]))))
"""


def step_argv(function: str, **kwargs: Any) -> list[str]:
    """The command line that calls `module:function(**kwargs)` in a child (see `step`)."""
    payload = json.dumps({k: str(v) if isinstance(v, Path) else v for k, v in kwargs.items()})
    return [sys.executable, "-c", _STEP, str(ROOT), function, payload]


# -- measuring one process ----------------------------------------------------------------
@dataclass(frozen=True)
class Measured:
    """One process run to its end, with its whole tree's figures."""

    wall_s: float
    cpu_s: float  # user + system of the process and every descendant, orphans included
    peak_rss_mb: float  # the largest sum of RSS over the tree, sampled (an upper bound: shared pages count twice)
    peak_pss_mb: float | None  # the same for PSS (shared pages split), when asked for
    stdout: str
    stderr: str
    returncode: int

    def json(self) -> Any:
        """The JSON the process printed: all of its output, or else its last line."""
        try:
            return json.loads(self.stdout)
        except json.JSONDecodeError:
            return json.loads(self.stdout.strip().splitlines()[-1])


_adopted = False


def _adopt_orphans() -> None:
    """Become the reaper of orphaned descendants (a pool's server process outlives the build
    process by a moment), so that their CPU time reaches this process's children's rusage."""
    global _adopted
    if not _adopted and sys.platform == "linux":
        pr_set_child_subreaper = 36
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_child_subreaper, 1, 0, 0, 0)
        _adopted = True


def children_cpu() -> float:
    """User + system CPU time of this process's waited-for children so far."""
    import resource

    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return kids.ru_utime + kids.ru_stime


def _parents() -> dict[int, int]:
    found: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", encoding="ascii", errors="replace") as handle:
                    found[int(entry.name)] = int(handle.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
    return found


def _own_children() -> set[int]:
    return {pid for pid, ppid in _parents().items() if ppid == os.getpid()}


def _reap_new(known: set[int]) -> None:
    """Wait for the children that appeared since `known` (orphans adopted from the measured tree)."""
    while adopted := _own_children() - known:
        for pid in adopted:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def process_tree(root: int) -> dict[int, int]:
    """The process `root` and all its descendants, each with its RSS in KiB."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    page_kib = os.sysconf("SC_PAGE_SIZE") // 1024
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", encoding="ascii", errors="replace") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(entry.name)
        parents[pid], rss[pid] = int(fields[1]), int(fields[21]) * page_kib
    tree, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent and pid not in tree]
        tree.update(children)
        frontier += children
    return {pid: rss[pid] for pid in tree if pid in rss}


def _tree_pss_kib(root: int) -> int:
    total = 0
    for pid in process_tree(root):
        try:
            with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as handle:
                total += next((int(line.split()[1]) for line in handle if line.startswith("Pss:")), 0)
        except OSError:
            continue
    return total


class TreeWatch:
    """Peak summed RSS (and optionally PSS) of a process and all its descendants, sampled from outside."""

    def __init__(self, pid: int, pss: bool = False, every: float = 0.05) -> None:
        self.pid, self.pss, self.every = pid, pss, every
        self.peak_rss_kib = self.peak_pss_kib = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.peak_rss_kib = max(self.peak_rss_kib, sum(process_tree(self.pid).values()))
            if self.pss:
                self.peak_pss_kib = max(self.peak_pss_kib, _tree_pss_kib(self.pid))

    def stop(self) -> tuple[float, float | None]:
        """(peak RSS MB, peak PSS MB or None)."""
        self._stop.set()
        self._thread.join()
        return self.peak_rss_kib / 1024, (self.peak_pss_kib / 1024 if self.pss else None)


def measure(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: dict[str, str] | None = None,
    ok: tuple[int, ...] = (0,),
    pss: bool = False,
    input_text: str | None = None,
) -> Measured:
    """Run `argv` to its end and measure its whole process tree (see the module docstring).

    Not for use while this process has other children that may end meanwhile (a browser, a server):
    those it would wait for too.
    """
    _adopt_orphans()
    known = _own_children()
    cpu = children_cpu()
    started = time.perf_counter()
    proc = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE if input_text is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    watch = TreeWatch(proc.pid, pss=pss)
    out, err = proc.communicate(input_text)
    wall = time.perf_counter() - started
    peak_rss, peak_pss = watch.stop()
    _reap_new(known)
    if proc.returncode not in ok:
        raise SystemExit(f"{' '.join(argv[:4])} ... exited {proc.returncode}:\n{err[-3000:]}")
    return Measured(wall, children_cpu() - cpu, peak_rss, peak_pss, out, err, proc.returncode)


def step(function: str, *, checkout: Path = ROOT, **kwargs: Any) -> tuple[dict[str, Any], Measured]:
    """Call `module:function(**kwargs)` in a fresh process with `checkout`'s pincite; its result and figures.

    If the result holds `cpu_before` (the child's own CPU time when the step began: the
    interpreter's start-up and imports), it is taken out of the measured CPU time.
    """
    run = measure(step_argv(function, **kwargs), cwd=checkout, env=checkout_env(checkout))
    result: dict[str, Any] = run.json()
    startup = float(result.pop("cpu_before", 0.0))
    figures = Measured(run.wall_s, run.cpu_s - startup, run.peak_rss_mb, run.peak_pss_mb, "", run.stderr, 0)
    return result, figures


def own_cpu() -> float:
    """User + system CPU time of this process so far."""
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


# -- counting git processes ---------------------------------------------------------------
class GitCounter:
    """A `git` wrapper for first place on PATH that logs each call's command name (past `-c`/`-C` options)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder / "gitwrap"
        self.folder.mkdir(parents=True, exist_ok=True)
        self.log = folder / "git-calls.log"
        real_git = shutil.which("git")
        assert real_git is not None
        wrapper = self.folder / "git"
        wrapper.write_text(
            "#!/bin/sh\nskip=0; name=?\n"
            'for a in "$@"; do\n'
            "  if [ $skip = 1 ]; then skip=0; continue; fi\n"
            '  case "$a" in -c|-C) skip=1;; -*) ;; *) name="$a"; break;; esac\n'
            "done\n"
            f'echo "$name" >> "{self.log}"\nexec "{real_git}" "$@"\n'
        )
        wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
        self.reset()

    def path(self) -> str:
        """A PATH value with the wrapper first."""
        return f"{self.folder}{os.pathsep}{os.environ['PATH']}"

    def reset(self) -> None:
        self.log.write_text("")

    def calls(self) -> dict[str, int]:
        """Git processes started since the last reset, by command name."""
        names = self.log.read_text().splitlines()
        return {name: names.count(name) for name in sorted(set(names))}

    def count(self) -> int:
        return len(self.log.read_text().splitlines())


# -- figures ------------------------------------------------------------------------------
def percentile(values: Sequence[float], pct: float) -> float:
    """The nearest-rank percentile."""
    import math

    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(pct / 100 * len(ordered)) - 1))]


def ratio(value: float, baseline: float) -> float | None:
    """`value / baseline`, rounded to three places; None without a baseline figure."""
    return round(value / baseline, 3) if baseline else None


def alternate(items: Sequence[_T], rounds: int) -> Iterator[tuple[int, list[_T]]]:
    """Each round's order: as given, then reversed, and so on, so a busy minute hits every side alike."""
    for number in range(rounds):
        yield number, list(items) if number % 2 == 0 else list(reversed(items))


def nonzero(counts: dict[str, int]) -> str:
    """`632 verified, 368 drifted`: the counts of a summary that are not zero."""
    return ", ".join(f"{n:,} {name.replace('_', ' ')}" for name, n in counts.items() if n)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
