"""No input ends in a traceback: arbitrary citations, settings and `.gitattributes` lines (issue 31).

Each input ends in a result or in a `PinciteError` (through the API) or a one-line message and
its exit code (through the CLI) — never another exception. Example counts are kept small so the
module runs in seconds; the regression tests of what these found are in test_robustness.py.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from indexer import api
from indexer.cli.main import main
from indexer.config import OPTIONS, Config, load_config
from indexer.errors import PinciteError
from indexer.extract.attributes import _declared
from indexer.text.citation import parse_citation
from indexer.text.model import decode_text_blob
from tests.conftest import CorpusRepo

EXIT_CODES = set(range(9))  # 0 and every PinciteError's code; click's usage errors are 2
FEW = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[CorpusRepo, str]]:
    corpus = CorpusRepo(tmp_path_factory.mktemp("no-traceback") / "repo")
    head = corpus.commit({"corpus/a.md": "# A\n\nRecords are kept for seven years.\n", "corpus/b.txt": "b\n"})
    api.build(corpus.root, site=False)
    yield corpus, head


def _one_line_error(result: Result) -> None:
    """The CLI ended with an exit code it documents, and said so without a traceback."""
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code in EXIT_CODES, (result.exit_code, result.output)
    assert "Traceback" not in result.output


# -- citations -------------------------------------------------------------------------------

_hex = st.text(alphabet="0123456789abcdefABCDEF", min_size=0, max_size=44)
_number = st.one_of(st.integers(0, 10**6).map(str), st.text(alphabet="0123456789", min_size=1, max_size=40))
_selector = st.one_of(
    st.builds(lambda a: f"L{a}", _number),
    st.builds(lambda a, b: f"L{a}-L{b}", _number, _number),
    st.builds(lambda a, b: f"c{a}-{b}", _number, _number),
    st.builds(lambda a, b, c, d: f"L{a}C{b}-L{c}C{d}", _number, _number, _number, _number),
    st.text(max_size=20),
)
_path = st.one_of(
    st.sampled_from(["corpus/a.md", "corpus/b.txt", "corpus", "corpus/a.md/.", ":(icase)CORPUS/A.MD", "../x", "/a"]),
    st.text(max_size=30),
)
_qualifier = st.one_of(st.just(""), st.builds(lambda t: f";x={t}", st.text(max_size=12)))


def _text_form(path: str, commit: str, selector: str, qualifier: str) -> str:
    return f"{path}@{commit}#{selector}{qualifier}"


def _permalink(scheme: str, host: str, blob: str, commit: str, path: str, fragment: str) -> str:
    return f"{scheme}://{host}/v/{blob}.html?commit={commit}&path={path}#{fragment}"


citation_strings = st.one_of(
    st.builds(_text_form, _path, _hex, _selector, _qualifier),
    st.builds(
        _permalink,
        st.sampled_from(["http", "https", "file", "ftp"]),
        st.one_of(st.sampled_from(["example.org", "[::1", "[::1]:80", "a:b:c", ""]), st.text(max_size=10)),
        st.text(alphabet="0123456789abcdef", min_size=40, max_size=40),
        _hex,
        _path,
        _selector,
    ),
    st.builds(lambda s: f"https://github.com/o/r/blob/{s}", st.text(max_size=40)),
    st.text(max_size=60),
)


@FEW
@given(text=citation_strings)
def test_any_citation_string_parses_or_is_a_syntax_error(text: str) -> None:
    with contextlib.suppress(PinciteError):
        parse_citation(text)


@FEW
@given(text=citation_strings)
def test_verify_and_resolve_end_in_a_verdict_or_an_error(repo: tuple[CorpusRepo, str], text: str) -> None:
    corpus, _head = repo
    for call in (lambda: api.verify([text], corpus.root), lambda: api.resolve(text, corpus.root)):
        with contextlib.suppress(PinciteError):
            call()
    for command in ("verify", "resolve"):
        _one_line_error(CliRunner().invoke(main, [command, "--repo", str(corpus.root), "--", text]))


@FEW
@given(texts=st.lists(citation_strings, min_size=1, max_size=4))
def test_check_reports_every_citation_of_a_document(repo: tuple[CorpusRepo, str], texts: list[str]) -> None:
    corpus, head = repo
    good = f"corpus/a.md@{head}#L3"
    try:
        report = api.check_text("\n\n".join([*texts, good]) + "\n", corpus.root)
    except PinciteError:
        return
    assert any(record.found.raw == good for record in report.records)


# -- settings --------------------------------------------------------------------------------

_values: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=10**300, max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.lists(st.text(max_size=10), max_size=3),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(sorted(OPTIONS)), value=_values)
def test_any_value_of_any_setting_is_taken_or_refused_by_name(name: str, value: Any) -> None:
    root = Path("/nonexistent-pincite-repository")
    try:
        config = load_config(root, {name: value})
    except PinciteError as exc:
        assert name in str(exc)
        return
    assert isinstance(config, Config)


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(sorted(OPTIONS)), raw=st.text(min_size=1, max_size=30))
def test_any_environment_variable_is_taken_or_refused_by_name(name: str, raw: str) -> None:
    from indexer.config import env_overrides

    variable = "PINCITE_" + name.upper()
    try:
        values = env_overrides({variable: raw})
        load_config(Path("/nonexistent-pincite-repository"), values)
    except PinciteError as exc:
        assert name in str(exc) or variable in str(exc)


# -- .gitattributes --------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(label=st.text(max_size=30), data=st.binary(max_size=40))
def test_any_encoding_label_is_read_or_refused(label: str, data: bytes) -> None:
    declared = _declared({"encoding": label})
    with contextlib.suppress(PinciteError):
        decode_text_blob(data, "corpus/a.md", declared.encoding)


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(line=st.text(alphabet=st.characters(blacklist_characters="\n\r\0"), max_size=40))
def test_any_gitattributes_line_ends_in_a_build_or_a_message(tmp_path_factory: Any, line: str) -> None:
    corpus = CorpusRepo(tmp_path_factory.mktemp("attributes") / "repo")
    corpus.commit({".gitattributes": line + "\n", "corpus/a.md": "# A\n\nText.\n"})
    _one_line_error(CliRunner().invoke(main, ["build", "--no-site", "--repo", str(corpus.root)]))
