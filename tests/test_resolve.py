"""resolve and cite: exact pinned text from git objects in every unit; every bad input fails clearly."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from indexer import build
from indexer.citations.resolve import Resolver, resolve
from indexer.cli.main import main
from indexer.errors import ExtractionError, PinciteError, RepositoryError, UsageError
from indexer.text.citation import Citation, parse_citation, permalink
from indexer.vcs.repo import GitRepo
from tests.conftest import CorpusRepo

DOC = "# Title\n\nFirst paragraph line one.\nLine two of it.\n\nCafé “quoted” — end.\n"


@pytest.fixture
def repo(corpus_repo: CorpusRepo) -> CorpusRepo:
    corpus_repo.commit({"corpus/doc.md": DOC, "corpus/crlf.txt": "a\r\nbé\r\nc\r\n", "corpus/bom.md": "\ufeffx\ny\n"})
    return corpus_repo


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def test_lines_chars_and_linecol_resolve_to_the_same_text(repo: CorpusRepo) -> None:
    git = GitRepo(repo.root)
    head = repo.head()
    by_lines = resolve(Citation(head, "corpus/doc.md", lines=(3, 4)), git)
    assert by_lines.text == "First paragraph line one.\nLine two of it."
    assert DOC[by_lines.span.start : by_lines.span.end] == by_lines.text
    by_chars = resolve(Citation(head, "corpus/doc.md", chars=(by_lines.span.start, by_lines.span.end)), git)
    by_linecol = resolve(Citation(head, "corpus/doc.md", linecol=by_lines.linecol), git)
    assert by_chars.text == by_linecol.text == by_lines.text
    assert by_chars.lines == by_lines.lines == (3, 4)
    assert by_lines.linecol == (3, 1, 4, 16)
    assert by_lines.blob == repo.git("rev-parse", f"{head}:corpus/doc.md").strip()
    assert by_lines.source_class == "text" and by_lines.identity.startswith("text/")


def test_crlf_is_kept_and_bom_is_not_counted(repo: CorpusRepo) -> None:
    git = GitRepo(repo.root)
    crlf = resolve(Citation(repo.head(), "corpus/crlf.txt", lines=(2, 2)), git)
    assert crlf.text == "bé\r" and crlf.span.start == 3
    bom = resolve(Citation(repo.head(), "corpus/bom.md", chars=(0, 1)), git)
    assert bom.text == "x"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_char_span_resolves_to_exactly_that_slice(repo: CorpusRepo, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(DOC)))
    end = data.draw(st.integers(start, len(DOC)))
    resolver = Resolver(GitRepo(repo.root))
    resolved = resolver.resolve(Citation(repo.head(), "corpus/doc.md", chars=(start, end)))
    assert resolved.text == DOC[start:end]
    again = resolver.resolve(Citation(repo.head(), "corpus/doc.md", linecol=resolved.linecol))
    assert (again.span.start, again.span.end) == (start, end)


def test_reads_git_objects_not_the_working_tree(repo: CorpusRepo) -> None:
    (repo.root / "corpus/doc.md").write_text("changed in the working tree\n")
    resolved = resolve(Citation(repo.head(), "corpus/doc.md", lines=(1, 1)), GitRepo(repo.root))
    assert resolved.text == "# Title"


def test_abbreviated_sha_is_accepted_and_made_full(repo: CorpusRepo) -> None:
    resolved = resolve(parse_citation(f"corpus/doc.md@{repo.head()[:7]}#L1"), GitRepo(repo.root))
    assert resolved.citation.commit == repo.head()


def test_context_lines(repo: CorpusRepo) -> None:
    resolved = resolve(Citation(repo.head(), "corpus/doc.md", lines=(3, 3)), GitRepo(repo.root))
    before, after = resolved.context(1)
    assert before == "\n" and after == "\nLine two of it."


@pytest.mark.parametrize(
    ("selector", "error", "message"),
    [
        ({"lines": (7, 7)}, UsageError, "past the end of corpus/doc.md"),
        ({"lines": (5, 90)}, UsageError, "has 6 line(s)"),
        ({"chars": (0, 10_000)}, UsageError, "past the end"),
        ({"linecol": (3, 1, 3, 99)}, UsageError, "column 99 is past the end of line 3"),
        ({"linecol": (40, 1, 40, 1)}, UsageError, "line 40 is past the end"),
    ],
)
def test_spans_out_of_range(repo: CorpusRepo, selector: dict[str, tuple[int, ...]], error: type, message: str) -> None:
    with pytest.raises(error) as info:
        resolve(Citation(repo.head(), "corpus/doc.md", **selector), GitRepo(repo.root))  # type: ignore[arg-type]
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("corpus/../secret.md", "'..' is not allowed"),
        ("/etc/passwd", "is absolute"),
        ("corpus", "is a folder"),
        ("corpus/missing.md", "does not exist"),
        ("corpus/image.bin.txt", "binary (a NUL byte in its first 8000 bytes"),
        ("corpus/nul.txt", "binary (a NUL byte"),
        ("corpus/latin.txt", "not valid UTF-8 (byte 3: b'\\xe9')"),
    ],
)
def test_bad_paths(repo: CorpusRepo, path: str, message: str) -> None:
    files = {"corpus/image.bin.txt": b"\x89PNG\r\n\x1a\n\0\0\0", "corpus/nul.txt": b"abc\0def\n"}
    repo.commit({**files, "corpus/latin.txt": "Caf\xe9\n".encode("latin-1")})
    with pytest.raises(PinciteError) as info:
        resolve(Citation(repo.head(), path, lines=(1, 1)), GitRepo(repo.root))
    assert message in str(info.value)


def test_unknown_commit_hints_at_shallow_clones(repo: CorpusRepo) -> None:
    with pytest.raises(RepositoryError) as info:
        resolve(Citation("0" * 40, "corpus/doc.md", lines=(1, 1)), GitRepo(repo.root))
    assert "is not a commit in this repository" in str(info.value) and "fetch-depth: 0" in str(info.value)


def test_ambiguous_short_sha(repo: CorpusRepo) -> None:
    prefix = repo.head()[:4]
    # Write a blob whose id shares the commit's first four hex digits.
    n = 0
    while True:
        content = f"collision {n}\n".encode()
        if hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest().startswith(prefix):
            break
        n += 1
    repo.git("hash-object", "-w", "--stdin", input_bytes=content)
    with pytest.raises(RepositoryError) as info:
        resolve(parse_citation(f"corpus/doc.md@{prefix}#L1"), GitRepo(repo.root))
    assert "ambiguous" in str(info.value)
    code, _out, err = run("resolve", f"corpus/doc.md@{prefix}#L1", "--repo", str(repo.root))
    assert code == 3 and "ambiguous" in err and "Traceback" not in err


def test_permalink_with_a_foreign_blob_is_unresolvable(repo: CorpusRepo) -> None:
    git = GitRepo(repo.root)
    good = resolve(Citation(repo.head(), "corpus/doc.md", lines=(1, 1)), git)
    url = permalink(good.citation, "https://x.org", good.blob)
    assert resolve(parse_citation(url), git).text == "# Title"
    forged = permalink(good.citation, "https://x.org", "1" * 40)
    with pytest.raises(RepositoryError, match="not the permalink's blob"):
        resolve(parse_citation(forged), git)


def test_extractor_identity_mismatch_fails_closed_naming_both(repo: CorpusRepo) -> None:
    build(repo.root, site=False)
    index = repo.root / ".pincite/index.sqlite"
    import sqlite3

    conn = sqlite3.connect(index)
    conn.execute("UPDATE versions SET identity = 'text/0-old'")
    conn.commit()
    conn.close()
    with pytest.raises(ExtractionError) as info:
        resolve(Citation(repo.head(), "corpus/doc.md", lines=(1, 1)), GitRepo(repo.root))
    assert "'text/0-old'" in str(info.value) and "'text/1'" in str(info.value)


# -- CLI ------------------------------------------------------------------------------
def test_cli_resolve_prints_exact_text_and_json(repo: CorpusRepo) -> None:
    code, out, _ = run("resolve", f"corpus/doc.md@{repo.head()}#L3-L4", "--repo", str(repo.root))
    assert code == 0 and out == "First paragraph line one.\nLine two of it.\n"
    code, out, _ = run(
        "resolve", f"corpus/doc.md@{repo.head()}#L3", "--context", "1", "--json", "--repo", str(repo.root)
    )
    data = json.loads(out)
    assert data["text"] == "First paragraph line one." and data["after"] == "\nLine two of it."


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["resolve", "corpus/doc.md@zzzz#L1"], 2, "'zzzz' is not a commit"),
        (["resolve", "corpus/doc.md@{head}#L9-L2"], 2, "reversed"),
        (["resolve", "corpus/doc.md@{head}#L99"], 2, "past the end"),
        (["resolve", "../x.md@{head}#L1"], 2, "'..' is not allowed"),
        (["resolve", "/abs.md@{head}#L1"], 2, "is absolute"),
        (["resolve", "corpus@{head}#L1"], 3, "is a folder"),
        (["resolve", "corpus/doc.md@{zero}#L1"], 3, "fetch-depth: 0"),
        (["cite", "corpus/doc.md", "--lines", "4-2"], 2, "reversed"),
        (["cite", "corpus/doc.md", "--lines", "x"], 2, "expected A-B"),
        (["cite", "corpus/doc.md"], 2, "exactly one of"),
        (["cite", "corpus/doc.md", "--quote", "not in the text"], 2, "does not stand in"),
        (["cite", "corpus/doc.md", "--quote", "it"], 2, "stands 2 times"),
        (["cite", "corpus/doc.md", "--lines", "1", "--rev", "nope"], 3, "'nope' is not a commit"),
    ],
)
def test_cli_bad_input_is_one_clear_line(repo: CorpusRepo, args: list[str], code: int, message: str) -> None:
    filled = [a.format(head=repo.head(), zero="0" * 40) for a in args]
    got, _out, err = run(*filled, "--repo", str(repo.root))
    assert got == code, err
    assert message in err and "Traceback" not in err


def test_cli_cite_by_quote_lines_and_chars(repo: CorpusRepo) -> None:
    root = str(repo.root)
    code, out, _ = run("cite", "corpus/doc.md", "--quote", 'Café "quoted" - end.', "--format", "json", "--repo", root)
    data = json.loads(out)
    assert code == 0 and data["text"] == "Café “quoted” — end." and data["lines"] == [6, 6]
    assert data["citation"] == f"corpus/doc.md@{repo.head()}#c{DOC.index('Café')}-{DOC.index('Café') + 20}"
    assert data["permalink"] is None and data["swhid"].startswith("swh:1:cnt:")
    code, out, err = run("cite", "corpus/doc.md", "--lines", "3-4", "--repo", root)
    assert out.splitlines()[0] == f"corpus/doc.md@{repo.head()}#L3-L4" and "site_url" in err
    code, out, _ = run(
        "cite", "corpus/doc.md", "--chars", "0-7", "--unit", "lines", "--site-url", "https://s.org", "--repo", root
    )
    assert out.splitlines()[0].endswith("#L1") and "https://s.org/v/" in out


def test_cli_markdown_snippet_is_read_back_by_check(repo: CorpusRepo, tmp_path: Path) -> None:
    code, out, _ = run(
        "cite",
        "corpus/doc.md",
        "--lines",
        "3-4",
        "--format",
        "markdown",
        "--site-url",
        "https://s.org",
        "--repo",
        str(repo.root),
    )
    assert out.startswith(
        "> First paragraph line one.\n> Line two of it.\n\n— [corpus/doc.md, lines 3-4](https://s.org/v/"
    )
    note = tmp_path / "note.md"
    note.write_text("# Note\n\n" + out)
    code, out, _err = run("check", str(note), "--json", "--repo", str(repo.root))
    record = json.loads(out)["records"][0]
    assert code == 0 and record["verdict"] == "verified" and record["quote_verdict"] == "matched"


def test_lines_only_in_an_uncommitted_edit_say_so(repo: CorpusRepo) -> None:
    (repo.root / "corpus/doc.md").write_text(DOC + "Added line seven.\nAnd eight.\n", encoding="utf-8")
    code, _out, err = run("cite", "corpus/doc.md", "--lines", "7-8", "--repo", str(repo.root))
    assert code == UsageError.exit_code
    assert "L7-L8 is past the end of corpus/doc.md" in err and "corpus/doc.md has uncommitted changes" in err
    assert "commit the change, then cite the lines again" in err
    repo.commit(message="commit the edit")
    code, out, _err = run("cite", "corpus/doc.md", "--lines", "7-8", "--repo", str(repo.root))
    assert code == 0 and "corpus/doc.md@" in out


def test_an_uncommitted_file_is_named_as_one(repo: CorpusRepo) -> None:
    (repo.root / "corpus/draft notes.md").write_text("# Draft\n", encoding="utf-8")
    code, _out, err = run("cite", "corpus/draft notes.md", "--lines", "1", "--repo", str(repo.root))
    assert code == RepositoryError.exit_code
    assert "corpus/draft notes.md is not committed: HEAD (" in err and "does not exist" not in err
    assert "commit it (`git add 'corpus/draft notes.md'` and `git commit`), then cite it" in err
    repo.git("add", "corpus/draft notes.md")  # staged is not committed either
    assert "is not committed" in run("cite", "corpus/draft notes.md", "--lines", "1", "--repo", str(repo.root))[2]


def test_the_working_tree_is_named_only_for_citations_of_head(repo: CorpusRepo) -> None:
    first = repo.head()
    repo.commit({"corpus/other.md": "# Other\n"})
    (repo.root / "corpus/doc.md").write_text(DOC + "Added.\n", encoding="utf-8")
    with pytest.raises(UsageError) as info:
        resolve(Citation(first, "corpus/doc.md", lines=(7, 7)), GitRepo(repo.root))
    assert "uncommitted" not in str(info.value) and "cite lines inside the document" in str(info.value)
    (repo.root / "corpus/new.md").write_text("x\n", encoding="utf-8")
    with pytest.raises(RepositoryError) as absent:
        resolve(Citation(first, "corpus/new.md", lines=(1, 1)), GitRepo(repo.root))
    assert "does not exist at" in str(absent.value)
