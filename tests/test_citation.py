"""Citation formats: text form, permalinks, GitHub URLs and SWH ids round-trip; bad strings fail clearly."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.errors import CitationSyntaxError
from indexer.text.citation import (
    Citation,
    github_repo,
    github_url,
    identity_token,
    parse_citation,
    parse_github_url,
    parse_permalink,
    parse_text_form,
    permalink,
    swhid,
)

SHA = "0123456789abcdef0123456789abcdef01234567"
BLOB = "fedcba9876543210fedcba9876543210fedcba98"

_path_segment = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="/\0"), min_size=1, max_size=12
).filter(lambda s: s not in (".", ".."))
# git writes no "." or ".." part (a citation refuses them: one spelling per document).
paths = st.lists(_path_segment.filter(lambda part: part not in (".", "..")), min_size=1, max_size=4).map("/".join)
shas = st.text(alphabet="0123456789abcdef", min_size=40, max_size=40)
tokens = st.none() | st.text(alphabet="0123456789abcdef", min_size=8, max_size=64)


@st.composite
def citations(draw: st.DrawFn) -> Citation:
    unit = draw(st.sampled_from(["lines", "chars", "linecol"]))
    a = draw(st.integers(1, 10_000))
    b = draw(st.integers(a, 20_000))
    token = draw(tokens)
    if unit == "lines":
        return Citation(draw(shas), draw(paths), lines=(a, b), identity_token=token)
    if unit == "chars":
        return Citation(draw(shas), draw(paths), chars=(a - 1, b), identity_token=token)
    c1 = draw(st.integers(1, 500))
    c2 = draw(st.integers(c1 if a == b else 1, 900))
    return Citation(draw(shas), draw(paths), linecol=(a, c1, b, c2), identity_token=token)


@settings(max_examples=300, deadline=None)
@given(citations())
def test_text_form_round_trips(citation: Citation) -> None:
    text = citation.text_form()
    assert " " not in text and "\n" not in text
    assert parse_text_form(text) == citation
    assert parse_citation(text) == citation


@settings(max_examples=200, deadline=None)
@given(citations(), st.sampled_from(["https://docs.example.org", "https://example.org/site/", "http://127.0.0.1:8000"]))
def test_permalink_round_trips_with_its_blob(citation: Citation, site: str) -> None:
    url = permalink(citation, site, BLOB)
    parsed, base = parse_permalink(url)
    assert parsed == Citation(
        citation.commit,
        citation.path,
        citation.lines,
        citation.chars,
        citation.linecol,
        blob=BLOB,
        identity_token=citation.identity_token,
    )
    assert base == site.rstrip("/")
    assert parse_citation(url) == parsed


def test_permalink_shape_is_the_site_contract() -> None:
    citation = Citation(SHA, "corpus/política de viagens.md", lines=(12, 18))
    url = permalink(citation, "https://docs.example.org/", BLOB)
    assert url == (
        f"https://docs.example.org/v/{BLOB}.html?commit={SHA}&path=corpus/pol%C3%ADtica%20de%20viagens.md#L12-L18"
    )


def test_an_extracted_citation_names_its_identity_in_both_forms() -> None:
    token = identity_token("pdf/1 pypdf=7.1.1 mode=plain")
    citation = Citation(SHA, "corpus/reports/ir.pdf", chars=(120, 340), identity_token=token)
    assert citation.text_form() == f"corpus/reports/ir.pdf@{SHA}#c120-340;x={token}"
    url = permalink(citation, "https://docs.example.org", BLOB)
    assert url == f"https://docs.example.org/v/{BLOB}.html?commit={SHA}&path=corpus/reports/ir.pdf&x={token}#c120-340"
    assert parse_citation(url) == Citation(
        SHA, "corpus/reports/ir.pdf", chars=(120, 340), blob=BLOB, identity_token=token
    )


def test_the_identity_token_is_a_prefix_of_the_identitys_sha256() -> None:
    identity = "html/1 readability-lxml=0.9 lxml=6.1.3 libxml2=2.14.6"
    assert identity_token(identity) == hashlib.sha256(identity.encode()).hexdigest()[:8]
    assert identity_token(identity) != identity_token(identity.replace("html/1", "html/2"))


def test_citations_without_an_identity_still_parse() -> None:
    old = parse_citation(f"corpus/reports/ir.pdf@{SHA}#c120-340")
    assert old.identity_token is None
    assert old.text_form() == f"corpus/reports/ir.pdf@{SHA}#c120-340"
    linked = parse_citation(f"https://x.org/v/{BLOB}.html?commit={SHA}&path=corpus/r.pdf#L3")
    assert linked.identity_token is None


def test_an_upper_case_identity_parses_lower_cased() -> None:
    assert parse_text_form(f"corpus/r.pdf@{SHA}#L2;x=3F2A9C1E").identity_token == "3f2a9c1e"


def test_non_ascii_path_with_spaces_stays_readable_in_text_form() -> None:
    citation = Citation(SHA, "corpus/tokyo/東京 オフィス.md", lines=(3, 3))
    assert citation.text_form() == f"corpus/tokyo/東京%20オフィス.md@{SHA}#L3"


def test_github_url_and_origin_forms() -> None:
    citation = Citation(SHA, "corpus/a b.md", lines=(2, 4))
    for origin in (
        "git@github.com:acme/handbook.git",
        "https://github.com/acme/handbook",
        "ssh://git@github.com/acme/handbook.git",
    ):
        assert github_repo(origin) == ("acme", "handbook")
        url = github_url(citation, origin, (2, 4))
        assert url == f"https://github.com/acme/handbook/blob/{SHA}/corpus/a%20b.md?plain=1#L2-L4"
        parsed, repo = parse_github_url(url)
        assert parsed == citation and repo == ("acme", "handbook")
    assert github_url(citation, "https://gitlab.example.org/acme/handbook.git", (2, 4)) is None
    assert github_url(citation, None, (2, 4)) is None


def test_swhid_has_content_origin_anchor_path_and_lines() -> None:
    citation = Citation(SHA, "corpus/a.md", lines=(5, 9))
    assert swhid(citation, BLOB, (5, 9), "git@github.com:acme/handbook.git") == (
        f"swh:1:cnt:{BLOB};origin=https://github.com/acme/handbook;anchor=swh:1:rev:{SHA};path=/corpus/a.md;lines=5-9"
    )
    assert swhid(citation, BLOB, (5, 5), None) == f"swh:1:cnt:{BLOB};anchor=swh:1:rev:{SHA};path=/corpus/a.md;lines=5"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (f"@{SHA}#L1", "not a citation"),  # empty path
        (f"corpus/a.md{SHA}#L1", "missing '@COMMIT'"),
        (f"corpus/a.md@{SHA}", "missing '#SPAN'"),
        ("corpus/a.md@xyz1#L1", "4-40 hex"),  # commit not hex
        ("corpus/a.md@abc#L1", "4-40 hex"),  # commit too short
        (f"corpus/a.md@{SHA}0#L1", "4-40 hex"),  # commit too long
        (f"corpus/a.md@{SHA}#X1", "is not one of"),  # unknown selector
        (f"corpus/a.md@{SHA}#L0", "empty or reversed"),  # zero line
        (f"corpus/a.md@{SHA}#L9-L3", "empty or reversed"),  # reversed lines
        (f"corpus/a.md@{SHA}#c9-3", "reversed"),  # reversed chars
        (f"corpus/a.md@{SHA}#L3C5-L3C2", "reversed"),  # reversed line:column
        (f"corpus/a.md@{SHA}#L3C0-L3C2", "zero-based"),  # zero column
        (f"corpus/a%zz.md@{SHA}#L1", "bad percent-escape"),
        (f"corpus/a%ff.md@{SHA}#L1", "invalid UTF-8"),
        (f"corpus/a.pdf@{SHA}#L1;x=3f2a", "not 8 to 64 hex digits"),  # identity token too short
        (f"corpus/a.pdf@{SHA}#L1;x=zzzzzzzz", "not 8 to 64 hex digits"),  # not hex
        (f"corpus/a.pdf@{SHA}#L1;x=", "not 8 to 64 hex digits"),  # empty
        (f"corpus/a.pdf@{SHA}#L1;y=3f2a9c1e", "only ';x=TOKEN'"),  # unknown qualifier
    ],
)
def test_malformed_text_forms_name_the_input_and_problem(text: str, message: str) -> None:
    with pytest.raises(CitationSyntaxError) as info:
        parse_citation(text)
    assert message in str(info.value)
    assert "#" in str(info.value) or "@" in str(info.value) or "%" in str(info.value)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (f"https://x.org/v/{BLOB}.html?path=a.md#L1", "commit="),
        (f"https://x.org/v/{BLOB}.html?commit=abc&path=a.md#L1", "commit="),
        (f"https://x.org/v/{BLOB}.html?commit={SHA}#L1", "path="),
        (f"https://x.org/v/{BLOB}.html?commit={SHA}&path=a.md", "#span"),
        (f"https://x.org/v/{BLOB}.html?commit={SHA}&path=a.md#L5-L2", "reversed"),
        (f"https://x.org/v/notablob.html?commit={SHA}&path=a.md#L1", "not a pincite permalink"),
        (f"https://x.org/v/{BLOB}.html?commit={SHA}&path=a.pdf&x=12#L1", "not 8 to 64 hex digits"),
        (f"https://x.org/v/{BLOB}.html?commit={SHA}&path=a.pdf&x=3f2a9c1e&x=3f2a9c1f#L1", "more than one"),
    ],
)
def test_malformed_permalinks(url: str, message: str) -> None:
    with pytest.raises(CitationSyntaxError) as info:
        parse_citation(url)
    assert message in str(info.value)


def test_abbreviated_commits_parse_lowercased() -> None:
    assert parse_text_form("corpus/a.md@ABCDEF1#L2").commit == "abcdef1"


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        (f"corpus/a.md@{SHA}#L3-5", f"corpus/a.md@{SHA}#L3-L5"),
        (f"corpus/a.md@{SHA}#l3-l5", f"corpus/a.md@{SHA}#L3-L5"),
        (f"corpus/a.md@{SHA}#3-5", f"corpus/a.md@{SHA}#L3-L5"),
        (f"corpus/a.md@{SHA}#L3..L5", f"corpus/a.md@{SHA}#L3-L5"),
        (f"corpus/a.md@{SHA}#l7", f"corpus/a.md@{SHA}#L7"),
        (f"corpus/a.md@{SHA}#C120-340", f"corpus/a.md@{SHA}#c120-340"),
        (f"corpus/a.md@{SHA}#c120-c340", f"corpus/a.md@{SHA}#c120-340"),
        (
            f"https://x.org/v/{BLOB}.html?commit={SHA}&path=a.md#L3-5",
            f"https://x.org/v/{BLOB}.html?commit={SHA}&path=a.md#L3-L5",
        ),
    ],
)
def test_a_span_spelled_another_way_gets_the_canonical_form(text: str, meant: str) -> None:
    with pytest.raises(CitationSyntaxError) as info:
        parse_citation(text)
    assert f"did you mean '{meant}'?" in str(info.value)
    parse_citation(meant)  # the suggestion is a citation


def test_a_span_nothing_like_the_grammar_gets_no_suggestion() -> None:
    with pytest.raises(CitationSyntaxError) as info:
        parse_citation(f"corpus/a.md@{SHA}#intro")
    assert "is not one of" in str(info.value) and "did you mean" not in str(info.value)


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("corpus/a.md@HEAD#L3-5", "pincite cite corpus/a.md --lines 3-5"),
        ("corpus/a.md@HEAD#L3", "pincite cite corpus/a.md --lines 3"),
        ("corpus/a.md@main#c120-340", "pincite cite corpus/a.md --rev main --chars 120-340"),
        ("corpus/my%20notes.md@v1.2#L4-L9", "pincite cite 'corpus/my notes.md' --rev v1.2 --lines 4-9"),
    ],
)
def test_a_citation_naming_a_branch_or_head_is_told_to_pin_a_commit(text: str, command: str) -> None:
    with pytest.raises(CitationSyntaxError) as info:
        parse_citation(text)
    message = str(info.value)
    assert "is not a commit" in message and f"did you mean {command!r}?" in message
    assert "`pincite cite` pins the commit" in message
