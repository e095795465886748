"""Markdown as GitHub and VitePress write it: footnotes, alerts, heading ids, anchors, containers, diagrams."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.api import build
from indexer.config import Config
from indexer.site.links import detect_docs_roots
from indexer.site.markdown import markdown_view
from tests.conftest import CorpusRepo
from tests.test_rst_view import PNG

RFC = """\
# Const generics {#const-generics .title}

Summary text with a note[^perf] and a link to [the design](#Detailed-Design), again[^perf].

<a name="old-anchor"></a>

## Detailed design {#detailed-design}

> [!NOTE]
> Useful *information* for readers.

> [!WARNING]
> Careful here.

::: tip Remember this
A tip **body**.

Second paragraph of the tip.
:::

::: warning
```js
::: not a fence inside code
```
:::

```mermaid
graph TD; Start-->Stop
```

Back to [the old anchor](#old-anchor).

[^perf]: The performance footnote.
"""


def test_footnotes_are_numbered_links_both_ways() -> None:
    html, _ = markdown_view(RFC)
    assert "[^perf]" not in html
    assert html.count('<a href="#h-fn-perf"') == 2
    assert 'id="h-fnref-perf"' in html and 'id="h-fnref-perf-1"' in html
    assert re.search(
        r'<div class="footnote" id="h-fn-perf"[^>]*>\s*<a class="footnote-label" href="#h-fnref-perf"', html
    )
    assert "The performance footnote." in html


def test_alerts_are_labelled_quotes() -> None:
    html, _ = markdown_view(RFC)
    assert "[!NOTE]" not in html and "[!WARNING]" not in html
    assert re.search(r'<blockquote class="alert alert-note"[^>]*>\s*<p class="alert-title">Note</p>', html)
    assert '<blockquote class="alert alert-warning"' in html


def test_heading_attributes_give_the_id_and_stay_out_of_titles() -> None:
    html, headings = markdown_view(RFC)
    assert "{#" not in html
    assert headings == [(1, "h-const-generics", "Const generics"), (2, "h-detailed-design", "Detailed design")]
    assert 'href="#h-detailed-design"' in html  # `#Detailed-Design` finds the lower-case id, as on GitHub
    assert '<a name="h-old-anchor"' in html and 'href="#h-old-anchor"' in html


def test_containers_are_labelled_blocks_and_diagrams_are_labelled_source() -> None:
    html, _ = markdown_view(RFC)
    assert ":::" not in html.replace("::: not a fence inside code", "")
    tip = re.search(r'<div class="directive container-tip">(.*?)</div>', html, re.DOTALL)
    assert tip and "Remember this" in tip.group(1) and "<strong>body</strong>" in tip.group(1)
    assert "Second paragraph of the tip." in tip.group(1)
    assert '<div class="directive container-warning">' in html and "::: not a fence inside code" in html
    assert re.search(r'<div class="directive diagram">.*?mermaid.*?Start--&gt;Stop', html, re.DOTALL)


def test_a_container_fence_keeps_its_source_line() -> None:
    html, _ = markdown_view(RFC)
    lines = RFC.split("\n")
    label = re.search(r'<p class="directive-label" data-line-start="(\d+)"(?: data-line-end="\d+")?>', html)
    assert label and lines[int(label.group(1)) - 1] == "::: tip Remember this"
    body = re.search(r'<p data-line-start="(\d+)"(?: data-line-end="\d+")?>A tip', html)
    assert body and lines[int(body.group(1)) - 1] == "A tip **body**."


def test_a_container_in_a_list_item_is_a_labelled_block_there() -> None:
    # As vuejs/docs writes it: the tip is indented as the nested item's text.
    source = "- Editors\n\n  - Visual Studio Code\n\n    :::tip\n    The extension replaces Vetur.\n    :::\n\nAfter.\n"
    html, _ = markdown_view(source)
    assert ":::" not in html, html
    tip = re.search(
        r'<li[^>]*>.*<div class="directive container-tip">.*?The extension replaces Vetur\..*?</div>', html, re.S
    )
    assert tip, html
    # and a closing fence indented up to three spaces closes it (vuejs/docs' `::: warning` … `  :::`)
    html, _ = markdown_view("::: warning Important\nMind this.\n  :::\n\nAfter.\n")
    assert ":::" not in html and re.search(r'container-warning">.*Mind this\..*</div>\s*<p[^>]*>After', html, re.S), (
        html
    )


def test_a_code_block_shows_its_title_and_highlights_its_language() -> None:
    # VitePress' info string: language, lines to highlight, title (`vue{5} [BlogPost.vue]`).
    html, _ = markdown_view("```vue{2} [BlogPost.vue]\n<p>{{ title }}</p>\n```\n\n```js:line-numbers\nlet x\n```\n")
    assert '<span class="directive-name">BlogPost.vue</span>' in html, html
    assert 'class="language-vue"' in html and 'class="language-js"' in html and "{2}" not in html, html
    assert '<span class="tk-' in html  # highlighted as Vue and JavaScript


def test_a_code_blocks_title_as_mkdocs_and_docusaurus_write_it() -> None:
    # squidfunk/mkdocs-material's reference pages: ``` markdown title="Image, lazy-loaded"; ``` { .sh .no-copy }
    html, _ = markdown_view('``` markdown title="Image, lazy-loaded"\n![x](y)\n```\n\n``` { .sh .no-copy }\nls\n```\n')
    assert '<span class="directive-name">Image, lazy-loaded</span>' in html, html
    assert 'class="language-markdown"' in html and 'class="language-sh"' in html, html


def test_mkdocs_admonitions_details_and_tabs_are_labelled_blocks_on_their_lines() -> None:
    source = (
        '!!! note "Mind the gap"\n\n    Body of the note.\n\n'  # lines 1-4
        "??? tip\n    Folded body.\n\n"  # lines 5-7
        '=== "Python"\n\n    ``` py\n    x = 1\n    ```\n\n    !!! warning\n\n        Inner warning.\n\n'  # 8-17
        '=== "Shell"\n\n    Run it.'  # lines 18-20, to the end
    )
    html, _ = markdown_view(source)
    label = r'<p class="directive-label" data-line-start="(\d+)"><span class="directive-name">([^<]+)</span>'
    labels = re.findall(label + r"(?: ([^<]+))?</p>", html)
    assert labels == [("1", "note", "Mind the gap"), ("5", "tip", ""), ("8", "tab", "Python"), ("14", "warning", ""),
                      ("18", "tab", "Shell")], html  # fmt: skip
    for line, words in (("3", "Body of the note."), ("6", "Folded body."), ("16", "Inner warning."), ("20", "Run it.")):
        assert f'<p data-line-start="{line}">{words}</p>' in html, html
    assert 'data-line-start="10" data-line-end="12"><code class="language-py">' in html, html
    assert html.count('<div class="directive') == html.count("</div>") == 5, html
    # A block under a paragraph line with no blank line between stays as written (no word is moved).
    kept, _ = markdown_view("!!! note\n    body\nNext line\n")
    assert "!!! note" in kept and "Next line" in kept, kept
    # Tabs with no body are labels; a body that raw HTML ends (mkdocs-material's `<div class="result" markdown>`).
    empty, _ = markdown_view('=== "One"\n\n=== "Two"\n\nAfter.\n')
    assert empty.count('<div class="directive container-tab">') == 2 and "===" not in empty, empty
    ended, _ = markdown_view('<div class="result" markdown>\n\n!!! note "Outer"\n\n    Body.\n</div>\n\nAfter.\n')
    nested = r"<div>\s*<div class=\"directive container-note\">.*Body\.</p>\s*</div>\s*</div>"
    assert re.search(nested, ended, re.S), ended
    # One the parse takes for code (indented under a paragraph) stays as written, its marked comment never shown.
    code, _ = markdown_view(':   Enables it:\n\n    !!! note "When using CI"\n\n        Adjust the settings.\n')
    assert "!!! note &#34;When using CI&#34;\n\n    Adjust the settings." in code and "&lt;!--" not in code, code


def test_front_matter_is_a_labelled_block_not_a_rule_and_a_heading() -> None:
    # vuejs/docs' pages start so; read as CommonMark, `---` was a rule and `footer: false` a heading.
    source = "---\nfooter: false\noutline: deep\n---\n\n# Introduction\n\nText.\n"
    html, headings = markdown_view(source)
    assert "<hr" not in html and [title for _level, _id, title in headings] == ["Introduction"], (html, headings)
    assert '<span class="directive-name">front matter</span>' in html and "outline" in html, html
    block = re.search(r'<pre class="code"[^>]*data-line-start="(\d+)"', html)
    assert block and block.group(1) == "1", html


def test_a_component_is_shown_as_its_source_not_dropped() -> None:
    # vuejs/docs: `<VueSchoolLink href=… title=…/>` (20 pages), `<SponsorsGroup tier=… />`, a live demo's
    # `<input placeholder=…>`: the sanitizer removed each tag, and a tag without content left no trace.
    source = (
        "# Events\n\n"
        '<VueSchoolLink href="https://vueschool.io/lessons/events" title="Free Lesson on Wordevents"/>\n\n'
        "<ScrimbaLink\n"
        '  href="https://scrimba.com/x" title="Scrimba Wordscrimba" />\n\n'
        'Inline <Badge type="tip" text="wordbadge" /> here, and <br> <B>bold</B>.\n\n'
        "<ClientOnly>\n\nInside the wrapper.\n\n</ClientOnly>\n\n"
        '<input v-model="message" placeholder="wordinput" />\n'
    )
    html, _ = markdown_view(source)
    lines = source.split("\n")
    for word in ("Wordevents", "Wordscrimba", "wordbadge", "wordinput", "Inside the wrapper."):
        assert word in html, (word, html)
    assert "&lt;VueSchoolLink" in html and "&lt;ClientOnly&gt;" in html and "&lt;/ClientOnly&gt;" in html, html
    label = r'<p class="directive-label" data-line-start="(\d+)"[^>]*><span class="directive-name">'
    labelled = re.findall(label, html)
    assert [lines[int(n) - 1].split(" ")[0] for n in labelled] == [
        "<VueSchoolLink",
        "<ClientOnly>",
        "</ClientOnly>",
        "<input",
    ], html
    assert '<code class="component">&lt;Badge type="tip" text="wordbadge" /&gt;</code>' in html, html
    # a tag over two lines is no HTML block for CommonMark: a paragraph, the tag its code
    assert re.search(r'<p data-line-start="5" data-line-end="6"><code class="component">&lt;ScrimbaLink\n', html), html
    assert "<br>" in html or "<br />" in html  # HTML elements stay HTML, whatever their case
    assert "<b>bold</b>" in html and "&lt;B&gt;" not in html, html


def test_raw_html_cannot_forge_a_container() -> None:
    forged = "<!--m0000000000000000~open-0-->\n\nText.\n"
    html, _ = markdown_view(forged)
    assert "directive" not in html and "Text." in html


def test_unbalanced_container_fences_stay_text() -> None:
    html, _ = markdown_view("::: tip\nNo closing fence.\n")
    assert "::: tip" in html and "directive" not in html


def test_the_table_of_contents_shows_titles_without_attributes(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    filler = "".join(f"\nParagraph {n}.\n" for n in range(40))
    doc = "# Top {#top}\n" + "".join(f"\n## Part {n} {{#part-{n}}}\n{filler}" for n in range(3))
    corpus_repo.commit({"corpus/rfc.md": doc})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    page = (site / "doc/corpus/rfc.md.html").read_text(encoding="utf-8")
    shown = re.findall(r"<h[1-6][^>]*>(.*?)</h[1-6]>", page) + re.findall(r'<a href="#h-part-\d">(.*?)</a>', page)
    assert "Part 1" in shown and not [title for title in shown if "{#" in title], shown


# -- links as VitePress, MkDocs and Docusaurus resolve them -------------------------------------------


def test_docs_framework_links_land_on_their_pages(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_repo.commit(
        {
            "corpus/site/.vitepress/config.mts": "export default { title: 'Docs' }\n",
            "corpus/site/guide/intro.md": "# Intro\n\nSee [components](./built-in-components), "
            "[the API](/api/) and [setup](/guide/setup.html#install) and [nothing](/guide/nothing).\n",
            "corpus/site/guide/built-in-components.md": "# Components\n",
            "corpus/site/guide/setup.md": "# Setup\n\n## Install\n",
            "corpus/site/api/index.md": "# API\n",
            "corpus/mk/mkdocs.yml": "site_name: Mk\n",
            "corpus/mk/docs/page.md": "# Page\n\n[Other](/other/) and [up](../other.md)\n",
            "corpus/mk/docs/other.md": "# Other\n",
            "corpus/plain/readme.md": "# Plain\n\n[root-relative](/corpus/plain/b.md) stays the repository's\n",
            "corpus/plain/b.md": "# B\n",
        }
    )
    site = tmp_path / "site"
    summary = build(corpus_repo.root, out=site)
    intro = (site / "doc/corpus/site/guide/intro.md.html").read_text(encoding="utf-8")
    assert 'href="../../../../doc/corpus/site/guide/built-in-components.md.html"' in intro
    assert 'href="../../../../doc/corpus/site/api/index.md.html"' in intro
    assert 'href="../../../../doc/corpus/site/guide/setup.md.html#h-install"' in intro
    page = (site / "doc/corpus/mk/docs/page.md.html").read_text(encoding="utf-8")
    page = re.sub(r'<nav class="?pager"?[ >].*?</nav>', "", page, flags=re.S)  # the folder's previous/next links
    assert page.count('href="../../../../doc/corpus/mk/docs/other.md.html"') == 1  # `/other/` from docs/
    plain = (site / "doc/corpus/plain/readme.md.html").read_text(encoding="utf-8")
    assert 'href="../../../doc/corpus/plain/b.md.html"' in plain
    broken = [w for w in summary.warnings if "broken link" in w]
    assert len(broken) == 2 and any("/guide/nothing" in w for w in broken), broken  # and mkdocs' ../other.md


def test_a_docs_framework_config_above_the_roots_names_the_docs_root(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    # As vuejs/docs: `.vitepress/` at the repository's root, `srcDir: 'src'`, and only `src` indexed;
    # MkDocs with its own `docs_dir`.
    corpus_repo.commit(
        {
            ".vitepress/config.ts": "export default defineConfig({\n  srcDir: 'src',\n  title: 'Vue'\n})\n",
            "src/guide/intro.md": "# Intro\n\nSee [components](/guide/components#props) and [the API](/api/).\n",
            "src/guide/components.md": "# Components\n\n## Props\n",
            "src/api/index.md": "# API\n\n![logo](/images/logo.png)\n",
            "src/public/images/logo.png": PNG,
            "book/mkdocs.yml": "site_name: Book\ndocs_dir: pages  # the book's pages\n",
            "book/pages/one.md": "# One\n\n[Two](/two/)\n",
            "book/pages/two.md": "# Two\n",
        }
    )
    site = tmp_path / "site"
    summary = build(corpus_repo.root, out=site, config=Config(roots=("src", "book")))
    intro = (site / "doc/src/guide/intro.md.html").read_text(encoding="utf-8")
    assert 'href="../../../doc/src/guide/components.md.html#h-props"' in intro
    assert 'href="../../../doc/src/api/index.md.html"' in intro
    api = (site / "doc/src/api/index.md.html").read_text(encoding="utf-8")
    assert re.search(r'<img src="(\.\./)+files/[0-9a-f]+\.png" alt="logo"', api), api  # from the public folder
    one = re.sub(
        r'<nav class="?pager"?[ >].*?</nav>',
        "",
        (site / "doc/book/pages/one.md.html").read_text(encoding="utf-8"),
        flags=re.S,
    )
    assert 'href="../../../doc/book/pages/two.md.html"' in one
    assert not [w for w in summary.warnings if "broken link" in w], summary.warnings


def test_raw_html_under_mkdocs_links_from_the_pages_folder_url(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    # squidfunk/mkdocs-material's docs/setup/setting-up-social-cards.md writes `<img src="../../assets/…">`:
    # MkDocs serves the page at setup/setting-up-social-cards/, and does not rewrite raw HTML.
    corpus_repo.commit(
        {
            "mkdocs.yml": "site_name: Book\n",
            "docs/assets/shot.png": PNG,
            "docs/setup/cards.md": '# Cards\n\n<img src="../../assets/shot.png" alt="Shot">\n\n[Flat](../flat/)\n',
            "docs/setup/index.md": '# Setup\n\n<img src="../assets/shot.png" alt="Here">\n',
            "docs/flat/index.md": "# Flat\n",
            "flat/mkdocs.yml": "site_name: Flat\nuse_directory_urls: false\n",
            "flat/docs/a/b.md": '# B\n\n<img src="../../assets/shot.png" alt="Shot">\n',
            "flat/docs/assets/shot.png": PNG,
        }
    )
    site = tmp_path / "site"
    summary = build(corpus_repo.root, out=site, config=Config(roots=("docs", "flat/docs")))
    for page, alt in (("docs/setup/cards.md", "Shot"), ("docs/setup/index.md", "Here")):
        html = (site / f"doc/{page}.html").read_text(encoding="utf-8")
        shot = re.search(rf'<img src="([^"]+)" alt="{alt}">', html)
        assert shot and (site / "doc" / page).parent.joinpath(shot.group(1)).resolve().read_bytes() == PNG, html
    cards = (site / "doc/docs/setup/cards.md.html").read_text(encoding="utf-8")
    assert 'href="../../../doc/docs/flat/index.md.html"' in cards  # a Markdown link stays the file's own
    broken = [w for w in summary.warnings if "broken link" in w]
    assert broken == ["flat/docs/a/b.md: broken link '../../assets/shot.png': 'flat/assets/shot.png' is not a document "
                      "or a file of the corpus"]  # fmt: skip


def test_docs_roots_from_framework_settings() -> None:
    texts = {
        "site/.vitepress/config.mts": 'export default { srcDir: "./content" }',
        "up/.vitepress/config.js": "export default { srcDir: '../../outside' }",
        "mkdocs.yml": "docs_dir: 'manual'\n",
        "other/mkdocs.yaml": "site_name: x\n",
    }
    assert detect_docs_roots((), texts) == ("manual", "other/docs", "site/content", "up")


# -- the property: no word of a GitHub or VitePress document is lost, no raw markup is left ------------

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=4, max_size=9).map(lambda w: "w" + w)
PHRASE = st.lists(WORD, min_size=1, max_size=5).map(" ".join)


@st.composite
def gfm_block(draw: st.DrawFn, depth: int = 0) -> str:
    kind = draw(st.integers(0, 9 if depth == 0 else 2))
    words = draw(PHRASE)
    if kind == 0:
        return f"{words}[^{draw(st.sampled_from(['a', 'b', 'note']))}]\n"
    if kind == 1:
        return f"## {words} {{#{draw(WORD)}}}\n"
    if kind == 2:
        return f"> [!{draw(st.sampled_from(['NOTE', 'TIP', 'WARNING', 'CAUTION', 'IMPORTANT']))}]\n> {words}\n"
    if kind == 3:
        inner = "\n".join(draw(st.lists(gfm_block(depth + 1), min_size=1, max_size=3)))
        return f"::: {draw(st.sampled_from(['tip', 'warning', 'details']))} {words}\n{inner}\n:::\n"
    if kind == 4:
        return f"```mermaid\ngraph TD; {words}\n```\n"
    if kind == 5:
        return f"[^{draw(st.sampled_from(['a', 'b', 'note']))}]: {words}\n"
    if kind == 7:  # an MkDocs admonition or collapsible block, with a block in its body
        sign = draw(st.sampled_from(["!!!", "???", "???+"]))
        inner = draw(gfm_block(depth + 1)).replace("\n", "\n    ")
        kind_name = draw(st.sampled_from(["note", "tip", "danger"]))
        return f'{sign} {kind_name} "{words}"\n\n    {draw(PHRASE)}\n\n    {inner}\n'
    if kind == 9:  # an MkDocs block where the parse sees code (under a definition, as MkDocs' def_list writes it)
        return f":   {words}\n\n    !!! note\n\n        {draw(PHRASE)}\n"
    if kind == 8:  # MkDocs content tabs, one beside the other
        return f'=== "{words}"\n\n    {draw(PHRASE)}\n\n=== "{draw(PHRASE)}"\n\n    {draw(PHRASE)}\n'
    # a container in a list item, indented as the item's text
    indent = " " * draw(st.sampled_from([2, 4]))
    return f"- {words}\n\n{indent}::: tip\n{indent}{draw(PHRASE)}\n{indent}:::\n"


@settings(max_examples=60, deadline=None)
@given(st.lists(gfm_block(), min_size=1, max_size=6).map("\n".join))
def test_no_word_is_lost_and_no_raw_markup_is_left(source: str) -> None:
    html, _ = markdown_view(source)
    text = re.sub(r"<[^>]+>", " ", html)
    wanted = set(re.findall(r"\bw[a-z]{4,9}\b", re.sub(r"\{#[^}]*\}", "", source)))
    assert wanted <= set(re.findall(r"\bw[a-z]{4,9}\b", text)), (wanted, source)
    assert "[!" not in text and "{#" not in text, text
    prose = re.sub(r"<[^>]+>", " ", re.sub(r"<pre.*?</pre>", " ", html, flags=re.DOTALL))  # code shows markup
    assert not re.search(r"^\s*(?:!!!|\?\?\?|===)", prose, re.MULTILINE), prose
    assert "<pre" not in html or "```" in source or "\n    !!!" in source, html  # no body is taken for code
    assert "&lt;!--" not in html, html  # and no marked comment is ever shown as text
    for label in ("a", "b", "note"):  # a reference with no definition stays text, as on GitHub
        if f"[^{label}]:" in source:
            assert f"[^{label}]" not in text, text
    assert not re.search(r"^:::", text, re.MULTILINE), text


# -- a theme's reader preference: both texts stand, each labelled ------------------------------------

PREFERENCE = """\
# Emits

The first argument to <span class="options-api">`this.$emit()`</span>\
<span class="composition-api">`emit()`</span> is the event name.

<div class="options-api">

Declare them in the `emits` option.

</div>
<div class="composition-api">

Declare them with `defineEmits()`.

</div>

A <span class="tip options-api extra">note</span> and a <span class="warning">plain</span> word.
"""


def test_a_themes_preference_classes_become_the_sites_labelled_ones() -> None:
    html, _headings = markdown_view(PREFERENCE)
    assert re.search(r'<span class="pref pref-options"><code>this\.\$emit\(\)</code></span>', html)
    assert re.search(r'<span class="pref pref-composition"><code>emit\(\)</code></span>', html)
    assert re.search(r'<div class="pref pref-options">\s*<p[^>]*>Declare them in the', html)
    assert re.search(r'<div class="pref pref-composition">\s*<p[^>]*>Declare them with', html)
    # Any other class of the corpus is still dropped, and a preference among others is kept alone.
    assert '<span class="pref pref-options">note</span>' in html
    assert "<span>plain</span>" in html and "warning" not in html


def test_preference_labels_are_shown_and_a_selection_still_cites_the_source(
    corpus_repo: CorpusRepo, tmp_path: Path, browser: Any
) -> None:
    from tests.browser import READER_VIEWPORTS, cited_source_of_selection, served

    corpus_repo.commit({"corpus/guide/emits.md": PREFERENCE})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    with served(site) as base:
        for width, height in READER_VIEWPORTS:
            tab = browser.new_page(viewport={"width": width, "height": height})
            tab.goto(base + "doc/corpus/guide/emits.md.html")
            labels = tab.evaluate(
                """[...document.querySelectorAll('#rendered .pref')].map(e => [
                    e.tagName, getComputedStyle(e, '::before').content, e.getBoundingClientRect().width])"""
            )
            assert [(tag, content) for tag, content, _w in labels] == [
                ("SPAN", '"Options API"'),
                ("SPAN", '"Composition API"'),
                ("DIV", '"Options API"'),
                ("DIV", '"Composition API"'),
                ("SPAN", '"Options API"'),
            ]
            assert all(w <= width for _tag, _content, w in labels)
            # The label is the stylesheet's, not text of the page: a selection cites the source's words.
            assert cited_source_of_selection(tab, corpus_repo.root, "is the event name") == "is the event name"
            tab.close()
