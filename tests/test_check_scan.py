"""Finding citations and their quotes in Markdown documents (the documented conventions)."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from indexer.citations.scan import scan
from indexer.text.citation import Citation, permalink

SHA = "0123456789abcdef0123456789abcdef01234567"
BLOB = "fedcba9876543210fedcba9876543210fedcba98"
TEXT = f"corpus/a.md@{SHA}#L3-L4"
LINK = permalink(Citation(SHA, "corpus/política de viagens.md", lines=(7, 8)), "https://docs.example.org", BLOB)


def test_all_three_forms_are_found_with_lines() -> None:
    doc = (
        f"See {TEXT}.\n\nAnd [the policy]({LINK}) too.\n\n"
        f"On GitHub: https://github.com/acme/handbook/blob/{SHA}/corpus/a%20b.md?plain=1#L2-L5\n"
    )
    found = scan(doc)
    assert [(f.kind, f.line) for f in found] == [("text", 1), ("permalink", 3), ("github", 5)]
    assert found[0].citation == Citation(SHA, "corpus/a.md", lines=(3, 4))
    assert found[1].citation is not None and found[1].citation.path == "corpus/política de viagens.md"
    assert found[1].site_base == "https://docs.example.org" and found[1].citation.blob == BLOB
    assert found[2].citation == Citation(SHA, "corpus/a b.md", lines=(2, 5)) and found[2].github_repo == (
        "acme",
        "handbook",
    )
    assert all(doc[f.start : f.end] == f.raw for f in found)


def test_a_citation_after_an_unclosed_fence_is_code_and_not_checked() -> None:
    assert scan("```\n\n" + TEXT) == []


def test_quote_conventions() -> None:
    doc = "\n".join(
        [
            f'1. ["Invoices are kept"]({LINK}) is the link-text rule.',  # 1: link text
            f"2. The policy says “seven years” ({TEXT}).",  # 2: inline, earlier in the item
            "",
            "> Backups run",
            "> every night.",
            "",
            f"— {TEXT}",  # 3: blockquote directly above the paragraph
            "",
            "> Email is kept for two years.",
            f"> — {TEXT}",  # 3: the citation inside the blockquote
            "",
            f"No quote here: {TEXT} and none for this one {TEXT}.",
            f'First "alpha" {TEXT} then "beta" {TEXT}',  # each takes the quote after the previous one
        ]
    )
    quotes = [f.quote for f in scan(doc)]
    assert quotes == [
        "Invoices are kept",
        "seven years",
        "Backups run\nevery night.",
        "Email is kept for two years.",
        None,
        None,
        "alpha",
        "beta",
    ]


def test_fenced_code_is_skipped_and_malformed_citations_are_reported() -> None:
    doc = f"```\n{TEXT}\n```\n\ncorpus/a.md@{SHA}#L9-L2 and corpus/b.md@{SHA}#c5-1\n"
    found = scan(doc)
    assert [f.line for f in found] == [5, 5]
    assert all(f.citation is None and f.error and "reversed" in f.error for f in found)


def test_emails_and_plain_hashes_are_not_citations() -> None:
    assert scan("Write to ops@example.org#L1 or see issue #12, commit abc123, user@deadbeef.\n") == []


def test_hundreds_of_citations_on_one_line() -> None:
    line = " ".join(f'"quote {i}" corpus/a.md@{SHA}#L{i + 1}' for i in range(500))
    found = scan("# Title\n\n" + line + "\n")
    assert len(found) == 500
    assert [f.quote for f in found[:3]] == ["quote 0", "quote 1", "quote 2"]
    assert found[499].citation == Citation(SHA, "corpus/a.md", lines=(500, 500))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200), st.integers(0, 200))
def test_scanning_never_raises_and_finds_an_inserted_citation(noise: str, at: int) -> None:
    at = min(at, len(noise))
    # Citations inside fenced code are skipped on purpose; noise must not open a fence.
    assume("```" not in noise and "~~~" not in noise)
    doc = noise[:at] + "\n\n" + TEXT + "\n\n" + noise[at:]
    found = scan(doc)
    assert any(f.citation == Citation(SHA, "corpus/a.md", lines=(3, 4)) for f in found)
    assert all(doc[f.start : f.end] == f.raw for f in found)


def test_citations_inside_markdown_emphasis_are_found_without_the_markers() -> None:
    doc = f"_{TEXT}_ and __{TEXT}__, *{TEXT}* and **{TEXT}**.\n\nAlso _{TEXT}_.\n"
    found = scan(doc)
    assert [(f.kind, f.raw, f.line) for f in found] == [("text", TEXT, 1)] * 4 + [("text", TEXT, 3)]
    assert all(f.citation == Citation(SHA, "corpus/a.md", lines=(3, 4)) for f in found)
    assert all(doc[f.start : f.end] == f.raw for f in found)


def test_a_path_starting_with_an_underscore_keeps_it() -> None:
    found = scan(f"See _posts/a.md@{SHA}#L3 and _posts/a.md@{SHA}#L4_.\n")
    assert [f.citation.path for f in found if f.citation] == ["_posts/a.md", "posts/a.md"]


def test_near_misses_are_reported_as_malformed_with_their_line() -> None:
    doc = f"# Notes\n\nSee corpus/a.md@{SHA}#L1ff.\nAnd corpus/a.md@{SHA}#L1_2, corpus/a.md@{SHA}#c5\n"
    found = scan(doc)
    assert [(f.kind, f.line, f.raw.rsplit("#", 1)[1]) for f in found] == [
        ("near_miss", 3, "L1ff"),
        ("near_miss", 4, "L1_2"),
        ("near_miss", 4, "c5"),
    ]
    assert all(f.citation is None and f.error and "is not a selector" in f.error for f in found)


def test_near_miss_rules_leave_ordinary_text_alone() -> None:
    assert scan(f"Mail ops@example.org#Lobby, see deadbeef#L1, issue #12.\n```\nx@{SHA}#L1ff\n```\n") == []


def test_a_citation_with_its_extractor_identity_is_found_whole() -> None:
    pdf = f"corpus/r.pdf@{SHA}#c10-80;x=3f2a9c1e"
    link = permalink(Citation(SHA, "corpus/p.html", chars=(4, 9), identity_token="3f2a9c1e"), "https://d.org", BLOB)
    doc = f'"Some words" ({pdf}). Then _{pdf}_; and [x]({link}).\nBroken: {pdf[:-8]}zz; and {TEXT}; end.\n'
    found = scan(doc)
    assert [f.kind for f in found] == ["text", "text", "permalink", "near_miss", "text"]
    assert [f.raw for f in found[:2]] == [pdf, pdf]
    assert found[0].citation == Citation(SHA, "corpus/r.pdf", chars=(10, 80), identity_token="3f2a9c1e")
    assert found[2].citation is not None and found[2].citation.identity_token == "3f2a9c1e"
    assert found[3].error is not None and "'zz' is not 8 to 64 hex digits" in found[3].error
    assert found[4].citation == Citation(SHA, "corpus/a.md", lines=(3, 4))  # a prose ';' stays prose
