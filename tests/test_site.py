"""The static site without a browser: rendering, escaping, atomic replacement, incrementality."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from markupsafe import escape

from indexer.api import build
from indexer.citations.drift import verify
from indexer.config import Config
from indexer.errors import ConfigError, UsageError
from indexer.index.store import PassageAnchor
from indexer.site.history_pages import diff_page_path
from indexer.site.markdown import markdown_view
from indexer.site.render import breakable_path, history_name, history_shard, source_view
from indexer.site.search_bundles import search_record
from indexer.site.serve import serve_in_thread
from indexer.text.citation import Citation
from indexer.vcs.repo import GitRepo
from tests.conftest import CorpusRepo, expanded_lines
from tests.histories import ROOTS, STEPS, commit_history

HANDBOOK = "# Handbook\n\nIntro.\n\n## Retention\n\nRecords are kept for seven years.\n\n## 中文\n\n保留期限 🎉 七年.\n"
XSS_MD = (
    "# Payloads\n\n<script>alert('md')</script>\n\n[click me](javascript:alert(1))\n\n"
    '<img src=x onerror="alert(2)">\n\n![pic](javascript:alert(3))\n\n<a href="javascript:alert(4)">raw</a>\n'
)

ORIGINAL_GUIDE = "".join(f"Line {n} of the guide.\n" for n in range(1, 9))


class _Collector(HTMLParser):
    """Collects tags with attributes and the text inside `#src` (whose lines omit their end tags)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.src_tag = ""  # the tag of `#src` while inside it
        self.src_depth = 0  # its own tag's nesting inside it
        self.src_text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if self.src_tag == tag or (not self.src_tag and dict(attrs).get("id") == "src"):
            self.src_tag = tag
            self.src_depth += 1

    def handle_endtag(self, tag: str) -> None:
        if self.src_tag == tag:
            self.src_depth -= 1
            if not self.src_depth:
                self.src_tag = ""

    def handle_data(self, data: str) -> None:
        if self.src_depth:
            self.src_text.append(data)


def _parse(html: str) -> _Collector:
    collector = _Collector()
    collector.feed(html)
    collector.close()
    return collector


def _history(site: Path, path: str) -> dict[str, Any]:
    shard = json.loads((site / "history" / f"{history_shard(path)}.json").read_text(encoding="utf-8"))
    entry: dict[str, Any] = expanded_lines(shard["paths"][path])
    return entry


def _banner_and_verdict(repo: Any, site: Path, pinned: str, path: str, lines: tuple[int, int]) -> tuple[Any, Any]:
    """Build the site; the target its history file gives the version of `path` at `pinned`, and verify's verdict."""
    _build(repo, site)
    blob = repo.git("rev-parse", f"{pinned}:{path}").strip()
    target = _history(site, path)["versions"][blob]["target"]
    return target, verify(Citation(pinned, path, lines=lines), GitRepo(repo.root))


def _build(repo: object, out: Path, **config: object) -> dict[str, object]:
    summary = build(repo.root, out=out, config=Config(**config))  # type: ignore[attr-defined,arg-type]
    assert summary.site is not None
    return summary.site


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab \n\r\t<>&\"'é中🎉\u2028\ufeff")), max_size=80))
def test_source_view_text_is_the_document_text_exactly(text: str) -> None:
    parsed = _parse(f'<ol id="src">{source_view(text)}</ol>')
    assert "".join(parsed.src_text) == text
    lines = text.split("\n")
    expected_lines = len(lines) - 1 if len(lines) > 1 and lines[-1] == "" else len(lines)
    line_ids = [attrs.get("id") for tag, attrs in parsed.tags if tag == "li"]
    assert line_ids == [f"L{n}" for n in range(1, expected_lines + 1)]


class _Marks(HTMLParser):
    """The line (`L{n}`) each passage anchor (`p{n}`) and page marker (`page-{n}`) opens."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.line = ""
        self.marks: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        ident = dict(attrs).get("id") or ""
        if tag == "li":
            self.line = ident
        elif tag in ("i", "a"):
            self.marks[ident] = self.line


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab\n\r<&é")), min_size=1, max_size=60), st.data())
def test_source_view_puts_passage_and_page_marks_on_the_line_of_their_offset(text: str, data: st.DataObject) -> None:
    starts = sorted(data.draw(st.lists(st.integers(0, len(text) - 1), max_size=4)))
    anchors = [PassageAnchor(ordinal, start) for ordinal, start in enumerate(starts)]
    page_starts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=3)))
    collector = _Marks()
    collector.feed(str(source_view(text, anchors, page_starts, "../files/x.pdf")))
    lines = len(text.split("\n")) - (1 if text.endswith("\n") else 0)

    def line_of(offset: int) -> str:
        return f"L{min(text[:offset].count(chr(10)) + 1, lines)}"

    expected = {f"p{a.ordinal}": line_of(a.start) for a in anchors}
    expected["page-1"] = "L1"
    expected.update({f"page-{page}": line_of(offset) for page, offset in enumerate(page_starts, start=2)})
    assert collector.marks == expected


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("a/<>&\"'é")), max_size=20))
def test_a_breakable_path_is_the_escaped_path_with_a_break_after_each_slash(path: str) -> None:
    html = str(breakable_path(path))
    assert html.replace("<wbr>", "") == str(escape(path))
    assert html.count("/<wbr>") == path.count("/") and html.count("<wbr>") == path.count("/")


def test_markdown_view_is_inert_and_tagged_with_source_lines() -> None:
    html, headings = markdown_view(XSS_MD)
    parsed = _parse(str(html))
    for tag, attrs in parsed.tags:
        assert tag not in ("script", "iframe", "object", "style")
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
        assert not str(attrs.get("href", "")).lower().startswith("javascript:")
        if tag == "img":  # raw HTML's <img>: no handler, and no source it could not vouch for
            assert "src" not in attrs, attrs
    assert "alert('md')" not in html
    assert headings == [(1, "h-payloads", "Payloads")]
    pictures, _ = markdown_view("![a <b> pic](https://tracker.invalid/p.png)\n")
    assert "<img" not in pictures
    assert '<a class="img-link" href="https://tracker.invalid/p.png"' in pictures
    assert "[image: a &lt;b&gt; pic]" in pictures
    # Raw HTML blocks carry no source lines; the paragraphs do.
    starts = [attrs.get("data-line-start") for tag, attrs in parsed.tags if tag == "p"]
    assert starts == ["5", "9", "11"]


RAW_HTML_MD = (
    "# Notes\n\n<!-- a comment line -->\n[Arc][Arc] and H<sub>2</sub>O, x<sup>2</sup>, <kbd>Ctrl</kbd><br>\n\n"
    "[Arc]: https://example.org/arc\n\n<details open><summary>More</summary>\n\nHidden *text*.\n\n</details>\n\n"
    '<table><tr><td colspan="2" onclick="x()">cell</td></tr></table>\n\n'
    '<div id="src" class="banner" data-line-start="1" style="color:red">clobber</div>\n\n'
    '<iframe src="https://evil.invalid"></iframe><style>body{display:none}</style><form><input></form>\n\n'
    "Never write <script> in a paragraph.\n\nStill here.\n\n<iframe src=x>\n\nAfter the frame. <plaintext> too.\n"
)


def test_raw_html_goes_through_the_allowlist() -> None:
    html, _ = markdown_view(RAW_HTML_MD)
    parsed = _parse(str(html))
    tags = [tag for tag, _ in parsed.tags]
    # The comment is dropped and no longer swallows the reference definition after it.
    assert "<!--" not in html and "a comment line" not in html
    assert '<a href="https://example.org/arc" rel="nofollow noopener noreferrer">Arc</a>' in html
    assert "<sub>2</sub>" in html and "<sup>2</sup>" in html and "<kbd>Ctrl</kbd>" in html and "<br>" in html
    assert '<details open=""><summary>More</summary>' in html and "<em>text</em>" in html
    assert '<td colspan="2">cell</td>' in html and "table-wrap" in html
    # Raw HTML cannot take the page's ids, classes or source lines, nor style anything.
    assert '<div id="h-src">clobber</div>' in html
    assert not {"iframe", "style", "form", "input"} & set(tags)
    assert "display:none" not in html
    # An element left open (whose text would run to its end tag) is closed at the end of its block.
    assert "Still here." in html and "After the frame.  too." in html


def test_a_language_pygments_does_not_know_is_plain_without_scanning_for_plugins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_scan(group: str) -> None:
        raise AssertionError("installed packages scanned for Pygments plugins")

    monkeypatch.setattr("pygments.plugin.iter_entry_points", no_scan)
    html, _ = markdown_view("```rust,ignore\nlet x = 1;\n```\n\n```toml\n[a]\n```\n")
    assert '<code class="language-rust,ignore">let x = 1;\n</code>' in html
    assert '<code class="language-toml"><span class="tk-k">[a]</span>' in html  # a name it knows: highlighted


def test_code_blocks_are_highlighted_at_build_time() -> None:
    text = '```python\ndef f(x):\n    return "s"  # note\n```\n\n```nosuchlanguage\na < b\n```\n\n    indented <code>\n'
    html, _ = markdown_view(text)
    assert '<pre class="code" tabindex="0" data-line-start="1" data-line-end="4"><code class="language-python">' in html
    assert '<span class="tk-k">def</span> <span class="tk-f">f</span>' in html
    assert '<span class="tk-c"># note</span>' in html and '<span class="tk-s">&#34;s&#34;</span>' in html
    assert '<code class="language-nosuchlanguage">a &lt; b\n</code>' in html
    assert "<code>indented &lt;code&gt;\n</code>" in html
    # The text of a highlighted block is the code, character for character.
    blocks = re.findall(r"<code[^>]*>(.*?)</code>", str(html), re.S)
    assert unescape(re.sub(r"<[^>]+>", "", blocks[0])) == 'def f(x):\n    return "s"  # note\n'


def test_history_name_is_stable() -> None:
    # The JavaScript mirror computes the same names (tested in the browser tests).
    assert history_name("corpus/a.md") == history_name("corpus/a.md")
    assert history_name("corpus/a.md") != history_name("corpus/b.md")
    assert len(history_name("中文/🎉.md")) == 16


# The entry modules, and the classic script that speaks on a page opened from a file.
SCRIPTS = ("static/pincite.js", "static/version-page.js", "static/search.js", "static/file-view.js")


def test_site_pages_escape_corpus_text(corpus_repo, tmp_path: Path) -> None:
    corpus_repo.commit({"corpus/xss.md": XSS_MD, "corpus/<b>odd & name</b>.txt": "<script>x</script>\r\n"})
    _build(corpus_repo, tmp_path / "site")
    for page in (tmp_path / "site").rglob("*.html"):
        parsed = _parse(page.read_text(encoding="utf-8"))
        for tag, attrs in parsed.tags:
            if tag == "script":
                assert str(attrs.get("src", "")).endswith(SCRIPTS), page
            assert not any(name.startswith("on") for name in attrs), (page, tag, attrs)
            assert not str(attrs.get("href", "")).lower().startswith("javascript:"), page
        csp = [a for tag, a in parsed.tags if tag == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
        assert len(csp) == 1 and "default-src 'self'" in str(csp[0].get("content")), page
    odd = tmp_path / "site" / "doc" / "corpus" / "<b>odd & name</b>.txt.html"
    assert "".join(_parse(odd.read_text(encoding="utf-8")).src_text) == "<script>x</script>\r\n"


# What a version page may add to its text: the site keeps one page per version of every document,
# so the page is its text, a short header and banner, and a bare `<li id=L12>` per line.
VERSION_PAGE_CHROME = 2500
VERSION_PAGE_PER_LINE = len("<li id=L100>") + 1


def test_version_pages_are_their_text_and_little_else(corpus_repo, tmp_path: Path) -> None:
    text = "# Line budget\n\n" + "".join(f'Line {n} of the budget, it\'s "quoted" prose.\n' for n in range(300))
    commit = corpus_repo.commit({"corpus/budget.md": text})
    site = tmp_path / "site"
    _build(corpus_repo, site)
    blob = corpus_repo.git("rev-parse", f"{commit}:corpus/budget.md").strip()
    page = (site / "v" / f"{blob}.html").read_bytes()
    lines = text.count("\n")
    added = len(page) - len(text.encode("utf-8"))
    assert added <= VERSION_PAGE_CHROME + VERSION_PAGE_PER_LINE * lines, (added, lines)
    assert "".join(_parse(page.decode("utf-8")).src_text) == text


def test_version_and_document_pages_and_history(corpus_repo, tmp_path: Path) -> None:
    first = corpus_repo.commit({"corpus/handbook.md": HANDBOOK})
    second = corpus_repo.commit({"corpus/handbook.md": HANDBOOK.replace("seven", "ten")})
    site = tmp_path / "site"
    _build(corpus_repo, site)
    old_blob = corpus_repo.git("rev-parse", f"{first}:corpus/handbook.md").strip()
    new_blob = corpus_repo.git("rev-parse", f"{second}:corpus/handbook.md").strip()
    assert (site / "v" / f"{old_blob}.html").is_file() and (site / "v" / f"{new_blob}.html").is_file()
    doc = (site / "doc" / "corpus" / "handbook.md.html").read_text(encoding="utf-8")
    assert f'<a id=version href="../../v/{new_blob}.html?commit={second}' in doc
    # Pagefind's marks are the search record's (search_bundles.pagefind_marks), not the page's.
    assert "data-pagefind" not in doc and b"<article data-pagefind-body>" in search_record(doc.encode())
    history = _history(site, "corpus/handbook.md")
    target = history["versions"][old_blob]["target"]
    assert target["status"] == "modified" and target["blob"] == new_blob
    assert [h[:4] for h in target["hunks"]] == [[7, 1, 7, 1]]
    assert history["versions"][new_blob]["target"]["status"] == "same"
    assert json.loads((site / "site.json").read_text())["head"] == second
    bundles = json.loads((site / "search-bundles.json").read_text())["bundles"]
    assert bundles and all((site / "pagefind" / name / "pagefind.js").is_file() for name in bundles)


def test_an_edited_latin1_document_gets_history_and_diff_pages_in_its_decoded_text(corpus_repo, tmp_path: Path) -> None:
    attributes = {".gitattributes": "corpus/*.txt encoding=iso-8859-1\n"}
    first = corpus_repo.commit({**attributes, "corpus/guia.txt": "Horário\n\nAbre às 8h30.\n".encode("latin-1")})
    second = corpus_repo.commit({"corpus/guia.txt": "Horário\n\nAbre às 8h00.\n".encode("latin-1")})
    site = tmp_path / "site"
    _build(corpus_repo, site)
    old_blob = corpus_repo.git("rev-parse", f"{first}:corpus/guia.txt").strip()
    target = _history(site, "corpus/guia.txt")["versions"][old_blob]["target"]
    assert target["status"] == "modified"
    # The changed word of each line, in code points of the line with its sign: "8h30" and "8h00".
    assert target["hunks"] == [[3, 1, 3, 1, ["-Abre às 8h30.", "+Abre às 8h00."], [[0, 9, 13], [1, 9, 13]]]]
    diff = site / diff_page_path(old_blob, corpus_repo.git("rev-parse", f"{second}:corpus/guia.txt").strip())
    assert "+Abre às <ins>8h00</ins>." in diff.read_text(encoding="utf-8")


def test_a_diff_page_marks_the_changed_words_of_a_long_line_and_escapes_them(corpus_repo, tmp_path: Path) -> None:
    start = "The committee reviews every request in the order received and answers within "
    first = corpus_repo.commit({"corpus/rules.md": f"# Rules\n\n{start}ten <b>days</b>.\n\nUnrelated.\n"})
    second = corpus_repo.commit({"corpus/rules.md": f"# Rules\n\n{start}<script>x()</script> days.\n\nNew.\n"})
    site = tmp_path / "site"
    _build(corpus_repo, site)
    blobs = [corpus_repo.git("rev-parse", f"{c}:corpus/rules.md").strip() for c in (first, second)]
    page = (site / diff_page_path(*blobs)).read_text(encoding="utf-8")
    assert "<script>" not in page and "<b>" not in page  # corpus text is escaped, marks or not
    # Only the words that changed, at the end of a line 90 characters long, are marked.
    assert f"-{start}<del>ten &lt;b&gt;days&lt;/b</del>&gt;." in page
    assert f"+{start}&lt;<ins>script&gt;x()&lt;/script&gt; days</ins>." in page
    # Two unrelated lines are each the whole change: nothing inside them is marked.
    assert '<span class="del">-Unrelated.\n</span><span class="add">+New.\n</span>' in page


def test_the_index_file_is_published_only_when_asked(corpus_repo, tmp_path: Path) -> None:
    corpus_repo.commit({"corpus/handbook.md": HANDBOOK})
    site = tmp_path / "site"
    _build(corpus_repo, site)
    pages = [site / "index.html", site / "doc" / "corpus" / "handbook.md.html"]
    assert not (site / "pincite.sqlite").exists()
    assert not any("pincite.sqlite" in page.read_text(encoding="utf-8") for page in pages)
    again = _build(corpus_repo, site, site_publish_index=True)
    assert again["pages_reused"] == 0  # the download link is on every page: all are rendered again
    assert (site / "pincite.sqlite").is_file()
    assert all('pincite.sqlite" download' in page.read_text(encoding="utf-8") for page in pages)


def test_incremental_rebuild_reuses_unchanged_pages(corpus_repo, tmp_path: Path) -> None:
    files: dict[str, str | bytes | None] = {f"corpus/doc{i}.md": f"# Doc {i}\n\nText {i}.\n" for i in range(8)}
    corpus_repo.commit(files)
    site = tmp_path / "site"
    cold = _build(corpus_repo, site)
    # A version page and a document page per document: one version each, so no history page.
    assert cold["pages_rendered"] == 16 and cold["pages_reused"] == 0
    assert not (site / "changes").exists()
    old_page = site / "v" / f"{corpus_repo.git('rev-parse', 'HEAD:corpus/doc0.md').strip()}.html"
    before = old_page.read_bytes()
    inode_other = (site / "v" / f"{corpus_repo.git('rev-parse', 'HEAD:corpus/doc1.md').strip()}.html").stat().st_ino
    corpus_repo.commit({"corpus/doc0.md": "# Doc 0\n\nChanged.\n"})
    warm = _build(corpus_repo, site)
    # One new version page, its document page, its history page (its second version) and the diff
    # page from the version before, and the first version's page again, which now links the history
    # page for a reader without JavaScript (its text the same); every other page is the previous file.
    assert warm["pages_rendered"] == 5 and warm["pages_reused"] == 14
    assert warm["history_written"] == 1 and warm["history_reused"] == 7
    latest = b"<a href=../doc/corpus/doc0.md.html>latest version</a>"
    history = latest + b" \xc2\xb7 <a href=../changes/corpus/doc0.md.html>history</a>"
    assert old_page.read_bytes() == before.replace(latest, history, 1) != before
    other = site / "v" / f"{corpus_repo.git('rev-parse', 'HEAD:corpus/doc1.md').strip()}.html"
    assert other.stat().st_ino == inode_other  # a page whose links did not change is the previous file


def _commit_places(site: Path) -> dict[str, int]:
    places: dict[str, int] = {}
    for shard in (site / "commits").glob("*.json"):
        held = json.loads(shard.read_text(encoding="ascii"))["commits"]
        assert all(sha.startswith(shard.stem) for sha in held)
        places.update(held)
    return places


def test_a_commits_place_is_in_the_one_file_of_its_prefix_and_a_new_commit_rewrites_one(
    corpus_repo, tmp_path: Path
) -> None:
    for n in range(6):
        corpus_repo.commit({f"corpus/doc{n}.md": f"# Doc {n}\n"})
    site = tmp_path / "site"
    _build(corpus_repo, site)
    line = corpus_repo.git("rev-list", "--first-parent", "--reverse", "HEAD").split()
    assert _commit_places(site) == {sha: place for place, sha in enumerate(line)}
    assert not (site / "commits.json").exists()  # no file holds the whole line
    before = {f.name: f.stat().st_mtime_ns for f in (site / "commits").glob("*.json")}
    time.sleep(0.01)
    new = corpus_repo.commit({"corpus/doc0.md": "# Doc 0, edited\n"})
    _build(corpus_repo, site)
    after = {f.name: f.stat().st_mtime_ns for f in (site / "commits").glob("*.json")}
    assert _commit_places(site) == {sha: place for place, sha in enumerate([*line, new])}
    assert {name for name in after if after[name] != before.get(name)} == {f"{new[:2]}.json"}
    # A build of a shorter line (a later history start) gives every commit its new place, and the
    # files of commits no longer published go: no page may read a place of another line.
    _build(corpus_repo, site, history_start=line[3])
    assert _commit_places(site) == {sha: place for place, sha in enumerate([*line[3:], new])}
    assert {f.stem for f in (site / "commits").glob("*.json")} == {sha[:2] for sha in [*line[3:], new]}


def test_a_paths_versions_write_each_line_of_their_hunks_once(corpus_repo, tmp_path: Path) -> None:
    """Every version diffs to the built commit's text: its lines are written once for them all."""
    lines = [f"clause {n}: a sentence long enough to weigh something in a history file\n" for n in range(40)]
    for n in range(12):
        lines[n * 3] = f"clause {n * 3}: reworded in round {n}\n"
        corpus_repo.commit({"corpus/policy.md": "".join(lines)})
    site = tmp_path / "site"
    _build(corpus_repo, site)
    shard = json.loads((site / "history" / f"{history_shard('corpus/policy.md')}.json").read_text(encoding="utf-8"))
    stored = shard["paths"]["corpus/policy.md"]
    entry = expanded_lines(stored)
    assert len(entry["versions"]) == 12
    head = "".join(lines).splitlines()
    for version in entry["versions"].values():
        for hunk in version["target"]["hunks"]:
            added = [line[1:] for line in hunk[4] if line.startswith("+")]
            assert added == head[hunk[2] - 1 : hunk[2] - 1 + hunk[3]]
    named = sum(len(hunk[4]) for version in stored["versions"].values() for hunk in version["target"]["hunks"])
    assert len(stored["lines"]) == len(set(stored["lines"])) and len(stored["lines"]) * 2 < named
    assert len(json.dumps(stored, ensure_ascii=False)) * 1.5 < len(json.dumps(entry, ensure_ascii=False))


def test_history_of_paths_gone_from_head_is_redone_only_when_where_they_lead_changes(
    corpus_repo, tmp_path: Path
) -> None:
    corpus_repo.commit({"corpus/gone.md": "# Gone\n\nSoon deleted.\n", "corpus/old.md": ORIGINAL_GUIDE})
    corpus_repo.commit({"corpus/gone.md": None})
    corpus_repo.move("corpus/old.md", "corpus/new.md")
    corpus_repo.commit({"corpus/other.md": "# Other\n"})
    site = tmp_path / "site"
    _build(corpus_repo, site)
    corpus_repo.commit({"corpus/other.md": "# Other, edited\n"})
    unrelated = _build(corpus_repo, site)
    assert unrelated["history_written"] == 1  # other.md alone: gone.md and old.md lead where they did
    corpus_repo.commit({"corpus/new.md": ORIGINAL_GUIDE + "A line added where old.md now stands.\n"})
    followed = _build(corpus_repo, site)
    assert followed["history_written"] == 2  # new.md, and old.md, which leads to it
    fresh = tmp_path / "fresh"
    _build(corpus_repo, fresh)
    for path in ("corpus/old.md", "corpus/gone.md"):
        shard = f"history/{history_shard(path)}.json"
        incremental = json.loads((site / shard).read_text(encoding="utf-8"))["paths"][path]
        assert incremental == json.loads((fresh / shard).read_text(encoding="utf-8"))["paths"][path]


def test_a_document_moved_out_of_the_roots_and_back_leads_where_verify_says(corpus_repo, tmp_path: Path) -> None:
    pinned = corpus_repo.commit({"corpus/guide.md": ORIGINAL_GUIDE, "corpus/other.md": "# Other\n"})
    corpus_repo.move("corpus/guide.md", "archive/guide.md")  # out of the roots
    for n in range(4):  # rewritten by more than half: no whole-tree diff pairs the two paths
        text = (corpus_repo.root / "archive/guide.md").read_text(encoding="utf-8")
        corpus_repo.commit({"archive/guide.md": text + "".join(f"Round {n}, new sentence {k}.\n" for k in range(9))})
    corpus_repo.move("archive/guide.md", "corpus/handbook.md")
    site = tmp_path / "site"
    target, verdict = _banner_and_verdict(corpus_repo, site, pinned, "corpus/guide.md", (2, 3))
    entry = _history(site, "corpus/guide.md")
    assert verdict.status == "verified" and verdict.followed_by == "index"
    assert target["status"] == "renamed" and target["path"] == verdict.new_path == "corpus/handbook.md"
    assert [(s["kind"], s["path"], s["hunks"]) for s in entry["steps"]] == [("renamed", "archive/guide.md", None)]
    corpus_repo.commit({"corpus/other.md": "# Other, edited\n"})
    assert _build(corpus_repo, site)["history_written"] == 1  # other.md alone: where guide.md leads is kept


def test_a_path_moved_away_and_made_again_leads_its_old_versions_where_verify_says(corpus_repo, tmp_path: Path) -> None:
    """rust-lang/book moved `src/` to `second-edition/src/` and wrote a new `src/` later."""
    pinned = corpus_repo.commit({"corpus/ch01.md": ORIGINAL_GUIDE})
    corpus_repo.move("corpus/ch01.md", "corpus/second/ch01.md")
    corpus_repo.commit({"corpus/second/ch01.md": "This edition moved.\n"})
    corpus_repo.commit({"corpus/ch01.md": "# A new first chapter\n\n" + ORIGINAL_GUIDE})
    target, verdict = _banner_and_verdict(corpus_repo, tmp_path / "site", pinned, "corpus/ch01.md", (2, 3))
    assert verdict.status == "drifted" and verdict.new_path == "corpus/second/ch01.md"
    assert target["status"] == "renamed" and target["path"] == verdict.new_path
    assert target["hunks"] and target["hunks"][0][:4] == [1, 8, 1, 1]


@settings(max_examples=10, deadline=None)
@example(steps=[("move", 0, "archive"), ("remake", 0, "corpus")])  # moved away, the path made again
@example(steps=[("move", 1, "attic"), *[("grow", 1, "corpus")] * 3, ("move", 1, "corpus/deep")])  # out and back
@given(steps=STEPS)
def test_every_version_in_the_history_files_leads_where_verify_says(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, int, str]]
) -> None:
    """The drift banner reads the history files, `pincite verify` walks the index: they must agree."""
    repo = CorpusRepo(tmp_path_factory.mktemp("leads"))
    commit_history(repo, steps)
    site = tmp_path_factory.mktemp("site") / "site"
    _build(repo, site)
    git = GitRepo(repo.root)
    head = repo.head()
    shards = [json.loads(f.read_text(encoding="utf-8"))["paths"] for f in (site / "history").glob("*.json")]
    line = repo.git("rev-list", "--first-parent", "--reverse", "HEAD").split()
    for path, record in ((p, r) for shard in shards for p, r in shard.items()):
        # Every commit an entry names comes with its place on the published line.
        assert all(line[step["seq"]] == step["commit"] for step in record["steps"])
        for first, last, first_seq, last_seq in (r for v in record["versions"].values() for r in v["ranges"]):
            assert line[first_seq] == first and (last is None) == (last_seq is None)
            assert last is None or line[last_seq] == last
        for blob, version in record["versions"].items():
            pinned = version["ranges"][-1][0]  # a blob held more than once is followed from its latest interval
            verdict = verify(Citation(pinned, path, lines=(1, 1)), git)
            target = version["target"]
            if verdict.new_path is None:
                assert target["status"] == "deleted", (path, blob, target, verdict.reason)
            elif git.blob_at(head, verdict.new_path) is not None and verdict.new_path.startswith(ROOTS):
                assert target.get("path") == verdict.new_path, (path, blob, target, verdict.reason)
            else:
                assert target["status"] == "unavailable", (path, blob, target, verdict.reason)
                assert verdict.new_path in target["reason"]


def test_version_pages_leave_when_their_history_does(corpus_repo, tmp_path: Path) -> None:
    first = corpus_repo.commit({"corpus/a.md": "# A\n\nold\n"})
    second = corpus_repo.commit({"corpus/a.md": "# A\n\nnew\n"})
    site = tmp_path / "site"
    _build(corpus_repo, site)
    old_blob = corpus_repo.git("rev-parse", f"{first}:corpus/a.md").strip()
    new_blob = corpus_repo.git("rev-parse", f"{second}:corpus/a.md").strip()
    assert {p.stem for p in (site / "v").iterdir()} == {old_blob, new_blob}
    _build(corpus_repo, site, history_start=second)
    assert {p.stem for p in (site / "v").iterdir()} == {new_blob}


def test_template_change_renders_everything_again(corpus_repo, tmp_path: Path) -> None:
    corpus_repo.commit(
        {
            "corpus/a.md": "# A\n",
            "templates/home.html": "{% extends 'base.html' %}{% block content %}<h1>Our own home</h1>{% endblock %}",
        }
    )
    site = tmp_path / "site"
    _build(corpus_repo, site)
    again = _build(corpus_repo, site, template_dir="templates")
    assert again["pages_reused"] == 0
    assert "Our own home" in (site / "index.html").read_text(encoding="utf-8")


def test_failed_build_leaves_previous_site_whole(corpus_repo, tmp_path: Path) -> None:
    corpus_repo.commit({"corpus/a.md": "# A\n", "templates/home.html": "{% extends 'base.html' %}{% block"})
    site = tmp_path / "site"
    _build(corpus_repo, site)
    before = {p.relative_to(site): p.read_bytes() for p in site.rglob("*") if p.is_file()}
    corpus_repo.commit({"corpus/a.md": "# A changed\n"})
    with pytest.raises(ConfigError, match=r"home\.html:1: site template error"):
        _build(corpus_repo, site, template_dir="templates")
    after = {p.relative_to(site): p.read_bytes() for p in site.rglob("*") if p.is_file()}
    assert after == before
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith((".tmp", ".old"))] == []


def test_the_replaced_site_is_removed_after_the_build_returns(corpus_repo, tmp_path: Path) -> None:
    corpus_repo.commit({"corpus/a.md": "# A\n"})
    site = tmp_path / "site"
    _build(corpus_repo, site)
    leftover = tmp_path / ".site.12345.interrupted.old"  # a removal a crash cut short
    (leftover / "doc").mkdir(parents=True)
    (leftover / "doc" / "a.md.html").write_text("old", encoding="utf-8")
    corpus_repo.commit({"corpus/a.md": "# A changed\n"})
    _build(corpus_repo, site)
    assert "A changed" in (site / "doc" / "corpus" / "a.md.html").read_text(encoding="utf-8")
    deadline = time.monotonic() + 60
    while [p for p in tmp_path.iterdir() if p.name.endswith(".old")] and time.monotonic() < deadline:
        time.sleep(0.05)  # a detached process removes them; the build did not wait for it
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == [".site.pincite"]
    while list((tmp_path / ".site.pincite").glob("*.old")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert {p.name for p in (tmp_path / ".site.pincite").iterdir()} == {".gitignore", "lock"}


def test_refuses_to_replace_a_folder_that_is_not_a_site(corpus_repo, tmp_path: Path) -> None:
    corpus_repo.commit({"corpus/a.md": "# A\n"})
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work")
    with pytest.raises(UsageError, match="not a pincite site"):
        build(corpus_repo.root, out=precious)
    assert (precious / "thesis.tex").read_text() == "years of work"


def test_fetched_html_is_never_served_as_html(corpus_repo, tmp_path: Path) -> None:

    page = "<html><body><h1>T</h1><p>Body text here.</p><script>alert(1)</script></body></html>"
    corpus_repo.commit({"corpus/page.html": page})
    site = tmp_path / "site"
    _build(corpus_repo, site)
    blob = corpus_repo.git("rev-parse", "HEAD:corpus/page.html").strip()
    published = [p.relative_to(site).as_posix() for p in (site / "files").rglob("*")]
    assert published == [f"files/{blob}.txt"]
    for file in site.rglob("*.htm*"):
        assert "<script>alert(1)</script>" not in file.read_text(encoding="utf-8"), file


def test_serve_sends_pagefind_mime_types_on_loopback(corpus_repo, tmp_path: Path) -> None:
    corpus_repo.commit({"corpus/a.md": "# A\n\nsome words\n"})
    site = tmp_path / "site"
    _build(corpus_repo, site)
    server, base = serve_in_thread(site)
    try:
        assert base.startswith("http://127.0.0.1:")
        wanted = {
            ".pf_meta": "application/octet-stream",
            ".pf_fragment": "application/octet-stream",
            ".pf_index": "application/octet-stream",
            ".pagefind": "application/wasm",
            ".js": "text/javascript; charset=utf-8",
        }
        seen = set()
        for file in (site / "pagefind").rglob("*"):
            if file.suffix in wanted:
                rel = file.relative_to(site).as_posix()
                with urllib.request.urlopen(base + rel) as response:
                    assert response.headers["Content-Type"] == wanted[file.suffix], rel
                    assert response.headers["X-Content-Type-Options"] == "nosniff"
                seen.add(file.suffix)
        assert seen == set(wanted)
    finally:
        server.shutdown()
        server.server_close()


def test_serve_refuses_a_folder_without_a_site(tmp_path: Path) -> None:
    from indexer.site.serve import make_server

    with pytest.raises(UsageError, match="no built site"):
        make_server(tmp_path)


def test_citations_report_checks_the_corpus_documents(corpus_repo, tmp_path: Path) -> None:
    first = corpus_repo.commit({"corpus/policy.txt": "alpha\nbeta\ngamma\n"})
    corpus_repo.commit({"corpus/report.md": f"# Report\n\nAs stated (corpus/policy.txt@{first}#L2).\n"})
    site = tmp_path / "site"
    _build(corpus_repo, site)
    page = (site / "citations.html").read_text(encoding="utf-8")
    blob = corpus_repo.git("rev-parse", f"{first}:corpus/policy.txt").strip()
    assert f"corpus/policy.txt@{first}#L2" in page
    assert 'class="tag verdict-verified"' in page
    assert f"v/{blob}.html?commit={first}&amp;path=corpus/policy.txt#L2" in page
    assert 'href="doc/corpus/report.md.html#L3"' in page


def test_snapshot_page_shows_its_url_and_fetch_time(corpus_repo, tmp_path: Path) -> None:
    meta = {
        "url": "https://example.org/notice?a=1&b=<2>",
        "final_url": "https://example.org/notice?a=1&b=<2>",
        "fetched_at": "2026-03-01T12:00:00Z",
        "status": 200,
        "content_type": "text/plain",
        "charset": "utf-8",
        "size": 20,
        "sha256": "0" * 64,
        "resolved_ip": "192.0.2.1",
        "pincite_version": "0.1.0",
        "extractor": None,
    }
    corpus_repo.commit(
        {
            "corpus/a.md": "# A\n",
            "snapshots/example.org/notice-00000000.txt": "A notice, fetched.\n",
            "snapshots/example.org/notice-00000000.txt.meta.json": json.dumps(meta),
        }
    )
    site = tmp_path / "site"
    _build(corpus_repo, site)
    page = (site / "doc" / "snapshots" / "example.org" / "notice-00000000.txt.html").read_text(encoding="utf-8")
    assert 'href="https://example.org/notice?a=1&amp;b=&lt;2&gt;"' in page
    assert "fetched 2026-03-01T12:00:00Z" in page
    # The Pagefind filter for the source class, as the search record writes it from the page.
    assert b'data-pagefind-filter="class[content]" content="snapshot"' in search_record(page.encode())


def test_pdf_pages_have_markers_linking_into_the_original(corpus_repo, tmp_path: Path) -> None:

    from fpdf import FPDF

    pdf = FPDF()
    for words in ("First page words.", "Second page words."):
        pdf.add_page()
        pdf.set_font("helvetica", size=12)
        pdf.cell(text=words)
    corpus_repo.commit({"corpus/two.pdf": bytes(pdf.output())})
    site = tmp_path / "site"
    _build(corpus_repo, site)
    blob = corpus_repo.git("rev-parse", "HEAD:corpus/two.pdf").strip()
    page = (site / "doc" / "corpus" / "two.pdf.html").read_text(encoding="utf-8")
    assert f'id="page-2" data-page="2" href="../../files/{blob}.pdf#page=2"' in page
    assert (site / "files" / f"{blob}.pdf").read_bytes()[:5] == b"%PDF-"
    assert "".join(_parse(page).src_text).count("Second page words.") == 1


def test_history_follows_a_rename_as_verify_does(corpus_repo, tmp_path: Path) -> None:

    body = "".join(f"rule {n}: keep the ledger for {n} years\n" for n in range(1, 30))
    old = corpus_repo.commit({"corpus/rules.md": body})
    corpus_repo.move("corpus/rules.md", "corpus/policy/rules.md")
    corpus_repo.commit({"corpus/policy/rules.md": "preface\n" + body})
    target, verdict = _banner_and_verdict(corpus_repo, tmp_path / "site", old, "corpus/rules.md", (5, 6))
    assert verdict.status == "verified" and verdict.new_path == "corpus/policy/rules.md"
    assert (target["status"], target["path"]) == ("renamed", verdict.new_path)
    assert [h[:4] for h in target["hunks"]] == [[0, 0, 1, 1]]
    assert verdict.relocated is not None and verdict.relocated.lines == (6, 7)


def test_history_follows_a_rename_step_by_step_after_the_file_grew(corpus_repo, tmp_path: Path) -> None:
    # Seen on rust-lang/rfcs: RFCs renamed (active/ -> text/) and edited much since. One git diff
    # from the old version to HEAD no longer pairs the two files; verify, walking commit by commit,
    # does, and the banner's history entry must say the same (not "deleted").

    body = "".join(f"rule {n}: keep the ledger for {n} years\n" for n in range(1, 11))
    old = corpus_repo.commit({"corpus/rules.md": body})
    corpus_repo.move("corpus/rules.md", "corpus/text/rules.md")
    corpus_repo.commit({"corpus/text/rules.md": body + "".join(f"annex {n}: a new rule\n" for n in range(40))})
    assert "D\tcorpus/rules.md" in corpus_repo.git("diff", "-M50%", "--name-status", old, "HEAD")  # no rename
    target, verdict = _banner_and_verdict(corpus_repo, tmp_path / "site", old, "corpus/rules.md", (5, 6))
    assert verdict.status == "verified" and verdict.new_path == "corpus/text/rules.md"
    assert (target["status"], target["path"]) == ("renamed", "corpus/text/rules.md")


def test_two_builds_do_not_write_one_site_at_once(corpus_repo, tmp_path: Path) -> None:
    import fcntl

    corpus_repo.commit({"corpus/a.md": "# A\n"})
    site = tmp_path / "site"
    _build(corpus_repo, site)
    with open(tmp_path / ".site.pincite" / "lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(UsageError, match="another pincite build is writing this site"):
            build(corpus_repo.root, out=site)
    assert (site / "index.html").is_file()


def test_broken_links_are_warnings_and_fail_a_strict_build(corpus_repo, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from indexer.cli.main import main

    corpus_repo.commit(
        {
            "corpus/a.md": "# A\n\n[fine](b.md#top) [gone](gone.md) ![pic](nothing.png) [again](gone.md)\n",
            "corpus/b.md": "# B\n",
        }
    )
    site = tmp_path / "site"
    args = ["build", "--repo", str(corpus_repo.root), "--out", str(site)]
    relaxed = CliRunner().invoke(main, args)
    assert relaxed.exit_code == 0, relaxed.output
    assert "warning: corpus/a.md: broken link 'gone.md': 'corpus/gone.md' is not a document" in relaxed.output
    assert "warning: corpus/a.md: broken link 'nothing.png'" in relaxed.output
    assert "2 broken links" in relaxed.output  # a link written twice is one broken link
    assert relaxed.output.count("broken link 'gone.md'") == 1
    strict = CliRunner().invoke(main, [*args, "--strict"])
    assert strict.exit_code == 1 and "broken link 'gone.md'" in strict.output
    page = (site / "doc/corpus/a.md.html").read_text(encoding="utf-8")
    assert '<a href="../../doc/corpus/b.md.html#h-top"' in page


def _pager(page: Path) -> list[tuple[str, str, str]]:
    """The previous and next links of a document page: (rel, href, title shown)."""
    html = page.read_text(encoding="utf-8")
    nav = re.search(r"<nav class=pager.*?</nav>", html, re.S)
    if nav is None:
        return []
    # The link's "Previous" or "Next" is drawn by CSS from its rel; its address is one token, unquoted.
    found = re.findall(r"rel=(\w+) href=([^ >]+)>(.*?)</a>", nav.group(0), re.S)
    return [(rel, href, unescape(title)) for rel, href, title in found]


def test_document_pages_link_the_previous_and_next_document_of_their_folder(corpus_repo, tmp_path: Path) -> None:
    corpus_repo.commit(
        {
            "corpus/a.md": "# Alpha & 1 < 2\n\nA.\n",
            "corpus/b.txt": "untitled text\n",
            "corpus/c.md": "# Gamma\n\nC.\n",
            "corpus/sub/d.md": "# Delta\n\nD.\n",
        }
    )
    site = tmp_path / "site"
    _build(corpus_repo, site)
    doc = site / "doc" / "corpus"
    assert _pager(doc / "a.md.html") == [("next", "b.txt.html", "b.txt")]
    assert _pager(doc / "b.txt.html") == [
        ("prev", "a.md.html", "Alpha & 1 < 2"),  # escaped in the page, as every title
        ("next", "c.md.html", "Gamma"),
    ]
    assert "Alpha &amp; 1 &lt; 2" in (doc / "b.txt.html").read_text(encoding="utf-8")
    assert _pager(doc / "c.md.html") == [("prev", "b.txt.html", "b.txt")]
    assert _pager(doc / "sub" / "d.md.html") == []  # alone in its folder; other folders are not neighbours
    # A new neighbour renders the pages beside it again, and only those.
    corpus_repo.commit({"corpus/bb.md": "# Beta two\n\nB.\n"})
    warm = _build(corpus_repo, site)
    assert _pager(doc / "c.md.html") == [("prev", "bb.md.html", "Beta two")]
    assert [n[2] for n in _pager(doc / "b.txt.html")] == ["Alpha & 1 < 2", "Beta two"]
    assert _pager(doc / "a.md.html") == [("next", "b.txt.html", "b.txt")]
    assert warm["pages_rendered"] == 4  # bb's version and document pages, b's and c's document pages


def test_a_history_page_has_the_search_box_and_keeps_a_version_apart_from_its_title(corpus_repo, tmp_path: Path):
    corpus_repo.commit({"corpus/h.md": "# Summary of rules\n\nOne.\n"})
    corpus_repo.commit({"corpus/h.md": "# Summary of rules\n\nTwo.\n"})
    site = tmp_path / "site"
    _build(corpus_repo, site)
    page = (site / "changes" / "corpus" / "h.md.html").read_text(encoding="utf-8")
    assert 'role="search"' in page and 'id="q-top"' in page
    text = re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", "", page)))
    assert re.search(r"Version [0-9a-f]{12} · Summary of rules", text), text
