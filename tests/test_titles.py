"""Titles a reader would pick: no markup, no generic heading many documents share."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer.api import build
from indexer.text.titles import document_title, fallback_title, name_title, plain, shared_titles
from tests.conftest import CorpusRepo


@pytest.mark.parametrize(
    ("title", "shown"),
    [
        ("**withdrawn** Range literals", "withdrawn Range literals"),
        ("The `foo` option {#foo-option .cls}", "The foo option"),
        ("[Linked](other.md) and ![an image](x.png)", "Linked and an image"),
        ("Use :pep:`the style <8>` and ``code``", "Use the style and code"),
        ("<code>raw</code> HTML", "raw HTML"),
        ("snake_case_name stays", "snake_case_name stays"),
        ("Escaped \\*stars\\*", "Escaped *stars*"),
    ],
)
def test_titles_hold_no_markup(title: str, shown: str) -> None:
    assert plain(title) == shown


def test_a_generic_first_heading_gives_way_to_the_metadata() -> None:
    rfc = "- Feature Name: `const_generics`\n- Start Date: 2017-05-01\n\n# Summary\n\nAllow constants.\n"
    assert document_title(rfc, "markdown", "text/2000-const-generics.md") == "Summary"  # its own title
    assert fallback_title(rfc, "text/2000-const-generics.md") == "const_generics"


def test_without_metadata_the_file_name_names_it_spelled_as_the_text_spells_it() -> None:
    rfc = "- Feature Name: N/A\n- Start Date: 2014-03-11\n\n# Summary\n\nThe RFC process: an RFC is a process.\n"
    assert fallback_title(rfc, "text/0002-rfc-process.md") == "RFC process"
    for placeholder in ("not applicable", "NA", "n.a.", "none"):  # rust-lang/rfcs' 1068 was "not applicable"
        governance = rfc.replace("N/A", placeholder).replace("RFC process", "Rust governance")
        assert fallback_title(governance, "text/1068-rust-governance.md") == "Rust governance", placeholder
    assert name_title("docs/guide/README.md") == "Guide"
    assert fallback_title("Abstract\n========\n\nWords.\n", "peps/pep-0999.rst") == "Pep 0999"


def test_a_title_is_shared_when_more_than_one_percent_and_at_least_three_documents_hold_it() -> None:
    assert shared_titles(["Summary", "summary:", "Summary.", "Other"]) == {"summary"}
    assert shared_titles(["Summary", "Summary", "Other"]) == frozenset()  # two are not many
    titles = ["Summary"] * 3 + [f"T{n}" for n in range(297)]  # 3 of 300 is 1%, not more
    assert shared_titles(titles) == frozenset()
    assert shared_titles([*titles, "Summary"]) == {"summary"}
    assert shared_titles(["", "", "", "x"]) == frozenset()  # no title is not a title


def test_a_heading_that_names_the_document_is_kept() -> None:
    assert document_title("# Summary of the budget\n\nText.\n", "markdown", "a/0001-x.md") == "Summary of the budget"
    assert document_title("PEP: 8\nTitle: Style Guide\n\nAbstract\n========\n", "rst", "pep-0008.rst") == "Style Guide"


def test_the_home_page_lists_rfcs_by_their_names(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    files: dict[str, str | bytes | None] = {}
    for n, name in enumerate(["rfc-process", "const-generics", "async-await"]):
        files[f"corpus/text/{n:04d}-{name}.md"] = f"- Start Date: 2020-01-0{n + 1}\n\n# Summary\n\nWords of {name}.\n"
    corpus_repo.commit(files)
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    home = (site / "index.html").read_text(encoding="utf-8") + "".join(
        p.read_text(encoding="utf-8") for p in site.glob("home/*.html")
    )
    for title in ("Rfc process", "Const generics", "Async await"):
        assert f">{title}</a>" in home, title
    assert ">Summary</a>" not in home


def test_a_title_few_documents_share_is_kept_and_the_rule_follows_the_corpus(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    """ "Summary" on two documents of five is kept; once a third document opens with it, all three
    give way to their names (pages rendered again), and a unique "Introduction" is kept throughout."""
    files: dict[str, str | bytes | None] = {
        "corpus/0001-alpha-plan.md": "# Summary\n\nAlpha.\n",
        "corpus/0002-beta-plan.md": "# Summary\n\nBeta.\n",
        "corpus/intro.md": "# Introduction\n\nHello.\n",
        "corpus/x.md": "# X\n\nx.\n",
        "corpus/y.md": "# Y\n\ny.\n",
    }
    corpus_repo.commit(files)
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    page = (site / "doc" / "corpus" / "0001-alpha-plan.md.html").read_text(encoding="utf-8")
    assert "<h1 class=doc-title>Summary</h1>" in page
    corpus_repo.commit({"corpus/0003-gamma-plan.md": "# Summary\n\nGamma.\n"})
    build(corpus_repo.root, out=site)
    home = (site / "index.html").read_text(encoding="utf-8")
    for title in ("Alpha plan", "Beta plan", "Gamma plan", "Introduction"):
        assert f">{title}</a>" in home, title
    assert ">Summary</a>" not in home
    page = (site / "doc" / "corpus" / "0001-alpha-plan.md.html").read_text(encoding="utf-8")
    assert "<h1 class=doc-title>Alpha plan</h1>" in page


def test_a_version_page_shows_the_title_its_document_page_shows_and_only_a_retitled_one_is_rendered_again(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    """A version page written while "Summary" named few documents shows it; once "Summary" opens many,
    the old version page shows the document's name as the document page does. Pages whose title did
    not change are kept, and a later one-file change renders that path's pages alone."""
    files: dict[str, str | bytes | None] = {
        "corpus/0001-alpha-plan.md": "# Summary\n\nAlpha.\n",
        "corpus/0002-beta-plan.md": "# Summary\n\nBeta.\n",
        **{f"corpus/{name}.md": f"# {name.title()}\n\n{name}.\n" for name in ("intro", "x", "y")},
    }
    corpus_repo.commit(files)
    alpha = corpus_repo.git("rev-parse", "HEAD:corpus/0001-alpha-plan.md").strip()
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    version = site / "v" / f"{alpha}.html"
    assert "<h1>Summary <code" in version.read_text(encoding="utf-8")
    corpus_repo.commit({"corpus/0001-alpha-plan.md": "# Summary\n\nAlpha, edited.\n"})
    corpus_repo.commit({"corpus/0003-gamma-plan.md": "# Summary\n\nGamma.\n"})
    build(corpus_repo.root, out=site)
    shown = version.read_text(encoding="utf-8")
    assert "<h1>Alpha plan <code" in shown and "<title>Alpha plan — " in shown
    written = {page.name: page.stat().st_mtime_ns for page in (site / "v").glob("*.html")}
    x_first = corpus_repo.git("rev-parse", "HEAD:corpus/x.md").strip()
    corpus_repo.commit({"corpus/x.md": "# X\n\nx, edited.\n"})
    again = build(corpus_repo.root, out=site)
    assert again.site is not None and again.site["pages_rendered"] <= 5  # x's pages and its neighbours'
    x = corpus_repo.git("rev-parse", "HEAD:corpus/x.md").strip()
    rewritten = {p.name for p in (site / "v").glob("*.html") if written.get(p.name) != p.stat().st_mtime_ns}
    # Of the version pages, the new one is written, and x's first, which now links x's history page.
    assert rewritten == {f"{x}.html", f"{x_first}.html"}
