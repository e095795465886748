"""pincite in a real terminal: a build's stages as progress bars, NO_COLOR, --quiet and --verbose.

The commands run under a pseudo-terminal (the pty module), as a user's shell runs them, so
`isatty` is true and click writes what it writes to a terminal.
"""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from indexer.cli.main import main
from tests.conftest import CorpusRepo

ROOT = Path(__file__).resolve().parent.parent
COLOUR = re.compile(rb"\x1b\[[0-9;]*m")  # an SGR sequence: colour, bold, dim
STAGES = (
    "reading history",
    "extracting",
    "writing the index",
    "finding citations",
    "version pages",
    "document pages",
    "history files",
    "history and diff pages",
    "home and folder pages",
    "Pagefind search index",
    "replacing the site",
)


def in_terminal(args: list[str], cwd: Path, **env: str) -> tuple[int, bytes]:
    """Run `pincite ARGS` with stdin, stdout and stderr on a pseudo-terminal; its exit status and all it wrote."""
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environ.update(PYTHONPATH=str(ROOT), COLUMNS="120", LINES="40", TERM="xterm", **env)
    pid, fd = pty.fork()
    if pid == 0:  # the child: its standard streams are the terminal
        os.chdir(cwd)
        os.execve(sys.executable, [sys.executable, "-m", "indexer.cli.main", *args], environ)
    written = b""
    while True:
        ready, _, _ = select.select([fd], [], [], 120)
        if not ready:
            os.kill(pid, 9)
            raise AssertionError(f"pincite {args} wrote nothing for 120 s: {written[-500:]!r}")
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the child has ended and closed the terminal
            break
        if not chunk:
            break
        written += chunk
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), written


def corpus(repo: CorpusRepo) -> CorpusRepo:
    repo.commit({"corpus/a.md": "# Alpha\n\nThe retention period is ten years.\n"})
    repo.commit({"corpus/a.md": "# Alpha\n\nThe retention period is seven years.\n", "corpus/b.md": "# Beta\n"})
    return repo


def test_a_build_in_a_terminal_shows_every_stage(corpus_repo: CorpusRepo) -> None:
    repo = corpus(corpus_repo)
    status, written = in_terminal(["build"], repo.root)
    assert status == 0, written
    text = written.decode()
    for stage in STAGES:
        assert re.search(rf"\r(\x1b\[\?25l)?{re.escape(stage)} +\[", text), f"no bar for {stage!r}: {text!r}"
    # Each stage's bar ends full, on its own line, before the summary.
    assert "extracting" in text and re.search(r"version pages +\[#+\]  3/3", text), text
    assert text.index("Pagefind search index") < text.index("built ")


def test_no_color_means_no_colour_codes_in_a_terminal(corpus_repo: CorpusRepo) -> None:
    repo = corpus(corpus_repo)
    assert in_terminal(["build", "--no-site"], repo.root)[0] == 0
    status, coloured = in_terminal(["search", "retention"], repo.root)
    assert status == 0 and COLOUR.search(coloured), "the search results are styled on a terminal"
    status, plain = in_terminal(["search", "retention"], repo.root, NO_COLOR="1")
    assert status == 0 and b"retention" in plain
    assert not COLOUR.search(plain), plain
    status, built = in_terminal(["build"], repo.root, NO_COLOR="1")
    assert status == 0 and b"document pages" in built and not COLOUR.search(built)


def test_quiet_draws_no_progress_and_no_notes(corpus_repo: CorpusRepo) -> None:
    repo = corpus(corpus_repo)
    status, written = in_terminal(["--quiet", "build"], repo.root)
    assert status == 0 and b"built " in written
    assert not any(stage.encode() in written for stage in STAGES[1:]), written
    status, written = in_terminal(["-q", "search", "nowhere-to-be-found"], repo.root)
    assert status == 0 and b"no matches" not in written
    assert b"no matches" in in_terminal(["search", "nowhere-to-be-found"], repo.root)[1]


def test_outside_a_terminal_a_build_prints_no_progress_unless_verbose(corpus_repo: CorpusRepo) -> None:
    repo = corpus(corpus_repo)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "indexer.cli.main"]
    # The cold build first: it passes every stage (a later build updates the site in place instead).
    verbose = subprocess.run([*command, "--verbose", "build"], cwd=repo.root, env=env, capture_output=True, text=True)
    assert verbose.returncode == 0 and "\r" not in verbose.stderr and "\x1b" not in verbose.stderr
    for stage in STAGES:
        assert re.search(rf"^{re.escape(stage)}(:| \(| \.\.\.).*$", verbose.stderr, re.M), (stage, verbose.stderr)
    assert re.search(r"^document pages: 2 done in \d+\.\d s$", verbose.stderr, re.M), verbose.stderr
    plain = subprocess.run([*command, "build"], cwd=repo.root, env=env, capture_output=True, text=True)
    assert plain.returncode == 0 and plain.stderr == "", plain.stderr  # as before: only the summary, on stdout
    updated = subprocess.run([*command, "--verbose", "build"], cwd=repo.root, env=env, capture_output=True, text=True)
    assert re.search(r"^updating the site: done in \d+\.\d s$", updated.stderr, re.M), updated.stderr


def test_quiet_and_verbose_together_are_refused() -> None:
    result = CliRunner().invoke(main, ["--quiet", "--verbose", "doctor"])
    assert result.exit_code == 2 and "--quiet and --verbose cannot be used together" in result.output


def test_shell_completion_scripts_are_produced() -> None:
    for shell, marker in (("bash", "complete -o nosort -F"), ("zsh", "compdef"), ("fish", "complete --no-files")):
        result = CliRunner().invoke(main, [], prog_name="pincite", env={"_PINCITE_COMPLETE": f"{shell}_source"})
        assert result.exit_code == 0 and marker in result.output and "_PINCITE_COMPLETE" in result.output, shell


def test_shell_completion_completes_commands_and_options() -> None:
    def complete(words: str) -> list[str]:
        env = {"_PINCITE_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": str(len(words.split()) - 1)}
        result = CliRunner().invoke(main, [], prog_name="pincite", env=env)
        assert result.exit_code == 0, result.output
        return [line.split(",", 1)[1] for line in result.output.splitlines()]

    assert complete("pincite bu") == ["build"]
    assert "--no-site" in complete("pincite build --no")
