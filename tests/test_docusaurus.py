"""A Docusaurus repository as its readers see it: links as Docusaurus resolves them, MDX on the page.

Shaped as facebook/react-native-website: `website/docusaurus.config.js` beside the indexed `docs/`
(`path: '../docs'`), released versions in `website/versions.json`, images in `website/static/`.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from indexer.api import build
from indexer.config import Config
from indexer.site import mdx
from indexer.site.markdown import markdown_view
from tests.conftest import CorpusRepo
from tests.test_rst_view import PNG
from tests.test_site_incremental import _assert_same_site

CONFIG = """\
import type * as PluginContentDocs from '@docusaurus/plugin-content-docs';

export default {
  title: 'Site',
  presets: [
    ['@docusaurus/preset-classic', {
      docs: {path: '../docs', sidebarPath: require.resolve('./sidebars')},
      blog: {path: 'blog'},
    }],
  ],
  plugins: [
    ['content-docs', {id: 'architecture', path: 'architecture', routeBasePath: '/architecture'}],
  ],
};
"""

MDX_PAGE = """\
---
id: native-modules
title: Native Modules
---

import Tabs from '@theme/Tabs'; import TabItem from '@theme/TabItem';
import constants from '@site/core/TabsConstants';
import RemoveGlobalCLI from './\\_remove-global-cli.md';

export const Hidden = () => <div onClick={() => alert(1)}>never</div>;

<PlatformSupport
  platforms={['android', 'ios']}
/>

{/* prettier-ignore */}
Install it {/* no reader sees this */} with your package manager, see <Badge text="new" /> here.

<Tabs groupId="package-manager" values={constants.packageManagers}>
<TabItem value="npm">

```shell
npm install thing
```

</TabItem>
<TabItem value="yarn" label="Yarn Classic">

```jsx
import Tabs from '@theme/Tabs';
<TabItem value="x">{/* kept: code */}</TabItem>
```

</TabItem>
</Tabs>

<RemoveGlobalCLI />

<TableRow name="Arrow functions" code="<C onPress={() => go()} />" url={base + '#arrows'} />
"""


def _docusaurus_repo(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit(
        {
            "website/docusaurus.config.js": CONFIG,
            "website/versions.json": '["1.0"]\n',
            "website/static/docs/assets/shot.png": PNG,
            "website/static/img/logo.png": PNG,
            "website/architecture/overview.md": "# Overview\n",
            "website/secret.png": PNG,
            "docs/get-started-without-a-framework.md": "---\nid: getting-started-without-a-framework\n---\n\n"
            "# Start\n\n## Install\n",
            "docs/custom.md": "---\nslug: /custom/place\n---\n\n# Custom\n",
            "docs/legacy/notes.md": "# Notes\n\n[up](guide.md) and [folder](../custom/place)\n",
            "docs/guide.md": "# Guide\n\n"
            "[start](getting-started-without-a-framework), "
            "[next](/docs/next/getting-started-without-a-framework#install), "
            "[slug](/docs/next/custom/place), [file](./custom.md), "
            "[released](/docs/getting-started-without-a-framework), "
            "[arch](/architecture/overview), [outside](/secret.png)\n\n"
            "![shot](/docs/assets/shot.png)\n\n"
            '<img src="/img/logo.png" alt="logo">\n',
            "docs/native-modules.md": MDX_PAGE,
            "docs/_remove-global-cli.md": "Remove the global CLI first.\n",
        }
    )


def _rendered(site: Path, document: str) -> str:
    page = (site / f"doc/{document}.html").read_text(encoding="utf-8")
    start = page.index("<div class=rendered-body>")
    return page[start : page.index("<div id=source-view>", start)]


def test_links_land_where_docusaurus_serves_them(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    _docusaurus_repo(corpus_repo)
    site = tmp_path / "site"
    summary = build(corpus_repo.root, out=site, config=Config(roots=("docs",)))
    guide = _rendered(site, "docs/guide.md")
    start = "../../doc/docs/get-started-without-a-framework.md.html"
    assert f'href="{start}"' in guide  # by the front matter's `id:`, from the page's URL folder
    assert f'href="{start}#h-install"' in guide  # `/docs/next/…`: the current docs
    assert 'href="../../doc/docs/custom.md.html"' in guide  # by `slug:`, and by file path
    images = re.findall(r'<img src="((?:\.\./)+files/[0-9a-f]+\.png)" alt="(shot|logo)"', guide)
    assert len(images) == 2, guide  # from the static folder beside the config
    for src, _alt in images:
        assert (site / "doc/docs" / src).resolve().is_file()
    notes = _rendered(site, "docs/legacy/notes.md")
    assert 'href="../../../doc/docs/guide.md.html"' in notes  # `guide.md` from the docs folder, as Docusaurus tries it
    assert 'href="../../../doc/docs/custom.md.html"' in notes  # from the page's URL folder `/docs/next/legacy/`
    broken = sorted(w for w in summary.warnings if "broken link" in w)
    assert len(broken) == 3, broken
    links = ("'/docs/get", "/architecture", "/secret")
    released, arch, outside = (next(w for w in broken if link in w) for link in links)
    assert "released version 1.0" in released and "website/versioned_docs/version-1.0" in released
    assert "website/architecture" in arch and "not under the roots" in arch
    assert "is not a document or a file of the corpus" in outside  # only the static folders are served


def test_mdx_shows_what_a_reader_reads(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    _docusaurus_repo(corpus_repo)
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=Config(roots=("docs",)))
    page = _rendered(site, "docs/native-modules.md")
    prose = re.sub(r"<pre.*?</pre>", "", page, flags=re.S)
    for hidden in ("import ", "export ", "Hidden", "alert", "prettier-ignore", "no reader sees", "onClick", "{/*"):
        assert hidden not in prose, hidden
    words = re.sub(r"<code>.*?</code>", "", prose)  # a mark's string attributes are code
    assert "&lt;" not in words and "platforms" not in words and "groupId" not in words, prose
    tab_labels = re.findall(
        r'<p class="directive-label" data-line-start="(\d+)"><span class="directive-name">tab</span> ([^<]*)</p>', page
    )
    assert tab_labels == [("20", "npm"), ("27", "Yarn Classic")], page
    shell = '<pre class="code" tabindex="0" data-line-start="22" data-line-end="24"><code class="language-shell">npm'
    assert shell in page
    code = html.unescape(re.sub(r"<[^>]+>", "", re.findall(r"<pre.*?</pre>", page, flags=re.S)[-1]))
    assert code == "import Tabs from '@theme/Tabs';\n<TabItem value=\"x\">{/* kept: code */}</TabItem>\n"  # as written
    assert re.search(r'data-line-start="12"><span class="directive-name">component</span> PlatformSupport</p>', page)
    assert '<span class="component" title="Badge"></span>' in page
    assert "Install it  with your package manager, see" in page
    included = re.search(r'data-line-start="37"><span class="directive-name">included</span> <a href="([^"]*)"', page)
    assert included and included.group(1) == "../../doc/docs/_remove-global-cli.md.html", page
    row = "TableRow name <code>Arrow functions</code> code <code>&lt;C onPress={() =&gt; go()} /&gt;</code></p>"
    assert f'data-line-start="39"><span class="directive-name">component</span> {row}' in page  # strings: words


def test_plain_markdown_is_not_read_as_mdx(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    # Without a Docusaurus config the same text is CommonMark: its `import` line is a paragraph, its
    # components shown as their source, as before (a guard: this holds on main too).
    corpus_repo.commit({"docs/native-modules.md": MDX_PAGE})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=Config(roots=("docs",)))
    page = _rendered(site, "docs/native-modules.md")
    assert "import Tabs from" in page and "&lt;PlatformSupport" in page and 'directive-name">tab<' not in page
    expected = markdown_view(MDX_PAGE)[0]
    ids = re.compile(r"m[0-9a-f]{16}~")
    assert ids.sub("", str(expected)).count("<p") == page.count("<p")


def test_a_changed_id_moves_the_links_in_an_incremental_build(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    _docusaurus_repo(corpus_repo)
    site, config = tmp_path / "site", Config(roots=("docs",))
    build(corpus_repo.root, out=site, config=config)
    changes: list[dict[str, str | bytes | None]] = [
        {"docs/get-started-without-a-framework.md": "---\nid: elsewhere\n---\n\n# Start\n"},  # guide.md's link breaks
        {"docs/custom.md": "---\nid: getting-started-without-a-framework\n---\n\n# Custom\n"},  # … lands on another
        {"website/static/docs/assets/shot.png": PNG + b"\0"},  # a static file changed
        {"website/versions.json": "[]\n"},  # no release: `/docs/…` is the current docs
    ]
    for number, files in enumerate(changes):
        corpus_repo.commit(files)
        summary = build(corpus_repo.root, out=site, config=config)
        cold = tmp_path / f"cold-{number}"
        cold_summary = build(corpus_repo.root, out=cold, config=config)
        _assert_same_site(site, cold)
        assert sorted(summary.warnings) == sorted(cold_summary.warnings)
    guide = _rendered(site, "docs/guide.md")
    # By its new `id:` (from the page's URL folder, and `/docs/…` now that no version is released) and its
    # file path; with no release there is no `/docs/next/`, and `slug:` is gone with the new front matter.
    assert guide.count('href="../../doc/docs/custom.md.html"') == 3, guide
    assert guide.count("<a rel=") == 4, guide


COMPONENT_LINES = st.lists(
    st.sampled_from(
        [
            '<TabItem value="a">',
            "</TabItem>",
            '<Tabs groupId="x">',
            "</Tabs>",
            "<Note",
            "  text={'a > b'}",
            "/>",
            "import X from './x.md';",
            "{/* a",
            "b */}",
            "```js",
            "```",
            "",
            "Some *text* {/* here */} on a line.",
            "- item <Badge />",
        ]
    ),
    max_size=30,
)


@settings(max_examples=150, deadline=None)
@given(COMPONENT_LINES)
@example(["```js", "```js", "```", "```js", '<TabItem value="a">'])  # "```js" in a fence is code, not its end
def test_mdx_marking_keeps_every_line_where_it_was(lines: list[str]) -> None:
    text = "\n".join(lines)
    marked = mdx.mark(text, "M~")
    assert marked.text.count("\n") == text.count("\n")
    for number, line in marked.lines.items():
        assert marked.text.split("\n")[line].strip() == mdx.comment("M~", number)
    view, _headings = markdown_view(text, None, is_mdx=True)
    assert "&lt;!--" not in view and "M~" not in view


def test_a_reader_sees_the_mdx_page_and_cites_its_words(corpus_repo: CorpusRepo, tmp_path: Path, browser: Any) -> None:
    from tests.browser import READER_VIEWPORTS, cited_source_of_selection, served

    _docusaurus_repo(corpus_repo)
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=Config(roots=("docs",)))
    with served(site) as base:
        for width, height in READER_VIEWPORTS:
            tab = browser.new_page(viewport={"width": width, "height": height})
            tab.goto(base + "doc/docs/native-modules.md.html")
            tabs = tab.locator("#rendered .container-tab .directive-label")
            assert tabs.all_inner_texts() == ["tab npm", "tab Yarn Classic"]
            badge = "e => getComputedStyle(e, '::before').content"
            assert tab.locator("#rendered span.component").evaluate(badge) == '"Badge"'  # drawn, not text
            assert tab.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
            cited = cited_source_of_selection(tab, corpus_repo.root, "with your package manager")
            assert cited == "with your package manager"
            tab.close()


def test_a_tab_is_named_by_the_label_its_tabs_give_its_value() -> None:
    text = (
        "<Tabs values={[ {label: 'Android (Java & Kotlin)', value: 'kotlin'}, {value: 'swift', label: 'iOS'} ]}>\n"
        '<TabItem value="kotlin">\n\nKotlin.\n\n</TabItem>\n<TabItem value="swift">\n\nSwift.\n\n</TabItem>\n'
        '<TabItem value="objc" label="Objective-C">\n\nObjC.\n\n</TabItem>\n</Tabs>\n'
    )
    view = str(markdown_view(text, None, is_mdx=True)[0])
    labels = re.findall(r'<span class="directive-name">tab</span> ([^<]*)</p>', view)
    assert labels == ["Android (Java &amp; Kotlin)", "iOS", "Objective-C"], view
