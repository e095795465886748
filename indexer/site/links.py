"""Links between the corpus's documents, as the site publishes them.

A relative link in a Markdown document (`../policies/remote-work.md#scope`, written for a
repository browser) names a path of the repository. On the site it becomes the link to that
document's page (`doc/<path>.html`, with the anchor mapped onto the page's heading ids); a
linked file that is not a document (an image, a spreadsheet) is published under `files/`;
a link to nothing is reported at build time, as MkDocs reports one, and `--strict` fails.

What a link becomes depends only on the link as written and on the *status* of its target at
the built commit (a document, a file of some blob, a folder, nothing). The builder keeps the
links of every document page in its manifest, so a reused page is checked again, and is
rendered again when the status of one of its targets changed, without parsing it.

Documentation sites write links as their framework resolves them, not as a repository
browser does. Under a *docs root* — a folder set in `site_docs_roots`, or found from the
framework's own file: the folder holding `.vitepress/` (or the `srcDir` its config names), the
folder `mkdocs.yml` names as `docs_dir` (`docs/` beside it by default), the folder of
`docusaurus.config.*`, Sphinx's source directory (the folder of its `conf.py`) — a link starting
with `/` starts at the docs root (VitePress' `/guide/x` is `<root>/guide/x.md`, Sphinx's
`/_static/shot.png` is `<root>/_static/shot.png`), not at the repository's root. The framework's
file may stand above the indexed roots (`.vitepress/` at the repository's root, `srcDir: 'src'`,
roots `src`). Under an MkDocs docs root, a relative link to nothing that names a file from the
page's own folder URL — MkDocs publishes `setup/x.md` at `setup/x/`, and raw HTML in it writes
`../../assets/shot.png` from there — names that file. And everywhere, a link to nothing that
names a page the way these frameworks do — without its suffix (`./built-in-components`), with
`.html` for `.md`, or a folder for its `index.md` — lands on that page, and an image written
`name.*` (Sphinx's "any format") is the file of that name in the first format the HTML builder
takes. A page of a Docusaurus docs folder (whose config may stand beside the roots: `website/`
with `path: '../docs'`) links by URL, as `indexer.site.docusaurus` resolves it: `/docs/next/x`, a
front matter's `id:`, a file of the static folders served at the site's root.

Nothing here makes a URL with a scheme: an external link is passed through as written (the
sanitizer has already refused `javascript:` and the like), and a corpus file is either a
path inside the site or, for SVG, a `data:` URL that only an `<img>` element gets (an SVG
is never served from the site's origin, where a reader could open it as a page).
"""

from __future__ import annotations

import base64
import hashlib
import json
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from urllib.parse import unquote

from indexer.shapes import BrokenLinkJson
from indexer.site import antora, docusaurus
from indexer.site.places import CorpusPlaces, Place
from indexer.site.render import doc_page_path, root_prefix, url_path

# Raster images are published as themselves; an <img> on the site may show them.
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif", ".bmp", ".ico"})
SVG_SUFFIXES = frozenset({".svg"})
# Files a browser would run as a page or a script if the site served them under their own name:
# published as plain text instead (never on the site's origin as what they are).
ACTIVE_SUFFIXES = frozenset(
    {".html", ".htm", ".xhtml", ".xht", ".shtml", ".svg", ".svgz", ".xml", ".xsl", ".xslt", ".mht", ".mhtml"}
    | {".js", ".mjs", ".swf", ".hta"}
)
FOLDER_PAGES = ("README.md", "readme.md", "index.md")
# How a docs framework names a page without its file's suffix: the suffixes tried, in order.
PAGE_SUFFIXES = (".md", ".mdx", ".rst", ".adoc")
MKDOCS_FILES = frozenset({"mkdocs.yml", "mkdocs.yaml"})
# Sphinx's configuration: its folder is the source directory, where `/_static/x.png` starts.
SPHINX_CONF = "conf.py"
SPHINX_SETTING = re.compile(r"^(?:extensions|html_theme|master_doc|root_doc|project)\s*=", re.MULTILINE)
# The formats Sphinx picks for an image written `name.*`, in the HTML builder's order.
SPHINX_IMAGE_FORMATS = (".svg", ".png", ".gif", ".jpg", ".jpeg", ".webp")
# The folders of a docs root whose files the site serves at its root: VitePress' and Docusaurus'.
PUBLIC_FOLDERS = ("public", "static")

# The selectors a document page answers itself (`#L12`, `#c3-9`, `#L2C1-L3C4`): never headings.
SELECTOR = re.compile(r"L\d+(?:-L\d+)?|c\d+-\d+|L\d+C\d+-L\d+C\d+|p\d+|page-\d+")
SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
SUFFIX = re.compile(r"\.[a-z0-9]{1,10}")

LINK = "link"
IMAGE = "image"
# A link or image a writer put in raw HTML, which MkDocs publishes as written: it starts at the page's URL.
HTML_LINK = "html-link"
HTML_IMAGE = "html-image"
IMAGE_KINDS = frozenset({IMAGE, HTML_IMAGE})
# A Sphinx label or glossary term a page names (`:ref:`, `:term:`), recorded by name: no path of the repository.
LABEL = "label"
# A `:ref:` without a title, which shows its section's title: that title is part of the page.
LABEL_TITLE = "label-title"
TERM = "term"
PLACE_KINDS = frozenset({LABEL, LABEL_TITLE, TERM})


def heading_fragment(fragment: str) -> str:
    """An anchor as written (`#retention`) → the id on the site's page (`h-retention`).

    Heading ids, and the ids raw HTML sets, all start with `h-`: nothing in a document can
    take an id the page's own scripts use (`src`, `banner`, `L12`).
    """
    if not fragment or SELECTOR.fullmatch(fragment):
        return fragment
    return "h-" + fragment


@dataclass(frozen=True)
class BrokenLink:
    """A link in a document whose target the site does not publish, reported as a build warning."""

    document: str
    link: str
    reason: str

    def message(self) -> str:
        return f"{self.document}: broken link {self.link!r}: {self.reason}"

    def to_json(self) -> BrokenLinkJson:
        return {"document": self.document, "link": self.link, "reason": self.reason}


@dataclass(frozen=True)
class Outcome:
    """What one link becomes on a page: `href` (None when broken), and what the build publishes."""

    href: str | None
    reason: str = ""
    publish: tuple[str, str] | None = None  # (site path, blob)
    svg_blob: str | None = None  # an SVG shown by <img> as a data: URL


class SiteTargets:
    """What a link can reach at the built commit: document pages, corpus files and folders."""

    def __init__(
        self,
        documents: Iterable[str],
        files: Mapping[str, str],
        docs_roots: Iterable[str] | None = None,
        frameworks: Mapping[str, str] = {},
        titles: Mapping[str, str] = {},
        places: CorpusPlaces | None = None,
        front_matter: Mapping[str, Mapping[str, str]] = {},
    ):
        """`docs_roots`: where `/` links start (None: the ones the frameworks' files name, looked for
        among `files` too); `frameworks`: the docs frameworks' config files (path → text) above and
        under the roots; `titles`: the documents' titles (an Antora page's `xref:page.adoc[]` shows its
        target's); `places`: the Sphinx labels and glossary terms of the reST documents; `front_matter`:
        the `id:` and `slug:` of the documents of Docusaurus' docs folders."""
        self.documents = frozenset(documents)
        self.titles = dict(titles)
        self.places = places or CorpusPlaces()
        self.files = dict(files)
        roots = tuple(docs_roots) if docs_roots is not None else detect_docs_roots(self.files, frameworks)
        # Longest first: a document belongs to the innermost docs root that holds it.
        normal = {"" if root in ("", ".") else posixpath.normpath(root) for root in roots}
        self.docs_roots = tuple(sorted(normal, key=len, reverse=True))
        self.directory_url_roots = frozenset(directory_url_roots(frameworks)) & normal
        # The folders an mkdocs.yml publishes, whatever the docs roots are set to: their Markdown is
        # Python-Markdown's with MkDocs' extensions (definition lists, icons, keys…), docs/design.md#d17.
        self.mkdocs_roots = tuple(sorted({root for root, _text in mkdocs_docs_dirs(frameworks)}))
        # Where `/` and raw HTML links start is part of what they become (a changed `srcDir` moves them all).
        self._where = [self.docs_roots, sorted(self.directory_url_roots), self.mkdocs_roots]
        folders: set[str] = set()
        for path in self.files:  # every file under the roots: string methods, not posixpath (a repository's paths)
            parent = path.rpartition("/")[0]
            while parent and parent not in folders:
                folders.add(parent)
                parent = parent.rpartition("/")[0]
        self.folders = frozenset(folders)
        self._by_name: dict[str, list[str]] | None = None
        # Antora components (antora.yml → the component's name): their pages name files by resource ID.
        self.descriptors = {path: text for path, text in frameworks.items() if antora.is_descriptor(path)}
        self.antora = {path: antora_name(text) for path, text in self.descriptors.items()}
        # Docusaurus sites: their pages link each other by URL (`/docs/next/x`, a front matter's `id:`).
        has_site = any(docusaurus.is_config(path) for path in frameworks)
        self.docusaurus = docusaurus.Docusaurus(frameworks, self.documents, front_matter) if has_site else None

    def is_mdx(self, document: str) -> bool:
        """Whether the site reads `document` as MDX, as Docusaurus does (its ESM, JSX and comments)."""
        return document.endswith(".mdx") or (self.docusaurus is not None and self.docusaurus.is_mdx(document))

    def why_missing(self, document: str, url: str) -> str | None:
        """What a link to nothing names on its framework's site, when that says more than the path."""
        return self.docusaurus.why_missing(document, url) if self.docusaurus is not None else None

    def named(self, name: str) -> list[str]:
        """The documents whose path ends with `/name` (or is `name`), in path order."""
        if self._by_name is None:
            by_name: dict[str, list[str]] = {}
            for path in sorted(self.documents):
                parts = path.split("/")
                for n in (1, 2):  # `pep-0008.rst` and `pep-0008/index.rst`
                    if len(parts) >= n:
                        by_name.setdefault("/".join(parts[-n:]), []).append(path)
            self._by_name = by_name
        return self._by_name.get(name, [])

    def status(self, target: str) -> str:
        if not target:
            return "outside"
        if target in self.documents:
            return "doc"
        if target in self.files:
            return "file:" + self.files[target]
        if target in self.folders:
            for name in FOLDER_PAGES:
                if f"{target}/{name}" in self.documents:
                    return "dir:" + name
            return "dir"
        return "missing"

    def docs_root(self, document: str) -> str | None:
        """The docs root that holds `document` ("" for the repository's root), if any."""
        for root in self.docs_roots:
            if not root or document.startswith(root + "/"):
                return root
        return None

    def is_mkdocs(self, document: str) -> bool:
        """Whether `document` stands under a folder an mkdocs.yml publishes (its docs_dir)."""
        return any(not root or document.startswith(root + "/") for root in self.mkdocs_roots)

    def is_resource_id(self, document: str, url: str) -> bool:
        """Whether `url`, which looks like a URL with a scheme, is an Antora resource ID (`cli:index.html`)."""
        return bool(self.antora) and antora.is_resource_id(url) and antora.module_of(document, self.antora) is not None

    def locate(self, document: str, url: str, kind: str = LINK) -> tuple[str, str, str]:
        """The repository path the relative link `url` in `document` names, with its query and fragment.

        As `target_of`, but a `/` link starts at the document's docs root, and a link to nothing
        that names a page as docs frameworks do (no suffix, `.html`, a folder) names that page.
        In an Antora module, a link is first read as a resource ID (`install.html` is the module's
        `pages/install.adoc` wherever the page stands, `shot.png` an image of its `images/`).
        """
        image = kind in IMAGE_KINDS
        module = antora.module_of(document, self.antora) if self.antora else None
        named = antora.resource_path(module, document, url, image) if module else None
        if named:
            path, fragment = named
            path = self._named_as_frameworks_do(path, image) or path
            if self.status(path) != "missing" or antora.is_resource_id(url):
                return path, "", fragment
        if self.docusaurus is not None and self.docusaurus.holds(document):
            resolved = self._as_docusaurus_resolves(document, url)
            if resolved is not None:
                return resolved
        root = self.docs_root(document)
        from_root = root is not None and url.startswith("/") and not url.startswith("//")
        if root and from_root:
            url = "/" + root + url
        target, query, fragment = target_of(document, url)
        if target:
            target = self._named_as_frameworks_do(target, image) or target
        as_html = kind in (HTML_LINK, HTML_IMAGE)
        if as_html and root in self.directory_url_roots and target and self.status(target) == "missing":
            from_page_url = target_of(page_url_document(document), url)[0]
            found = from_page_url and self._named_as_frameworks_do(from_page_url, image)
            if found:
                return found, query, fragment
        if from_root and target and self.status(target) == "missing":
            # A file of the site's public folder is served at its root (VitePress' `/images/logo.svg`).
            inside = target[len(root) + 1 :] if root else target
            for folder in PUBLIC_FOLDERS:
                public = posixpath.join(root or "", folder, inside)
                if self.status(public) != "missing":
                    return public, query, fragment
        return target, query, fragment

    def _as_docusaurus_resolves(self, document: str, url: str) -> tuple[str, str, str] | None:
        """The path a link of a Docusaurus docs page names: a file beside the page as written, else a page
        by its URL or file path, or a file of the static folders (see `indexer.site.docusaurus`)."""
        assert self.docusaurus is not None
        rest, _, fragment = url.partition("#")
        path, _, query = rest.partition("?")
        if not path:
            return None
        if not path.startswith("/") and not path.endswith(docusaurus.PAGE_SUFFIXES):
            beside = target_of(document, url)
            if beside[0] and self.status(beside[0]) != "missing":
                return beside  # an image or an attachment next to the page
        target = self.docusaurus.locate(document, path, lambda candidate: self.status(candidate) != "missing")
        if target is None:
            return None
        return target, ("?" + query if query else ""), ("#" + fragment if fragment else "")

    def _named_as_frameworks_do(self, target: str, image: bool) -> str | None:
        """The file a link `target` names the way docs frameworks write links, if one stands there."""
        if self.status(target) != "missing":
            return target
        if image and target.endswith(".*"):
            stem = target[:-2]
            return next((stem + f for f in SPHINX_IMAGE_FORMATS if stem + f in self.files), None)
        return self._page_named(target)

    def _page_named(self, target: str) -> str | None:
        stem = target[: -len(".html")] if target.endswith(".html") else target
        for candidate in [stem + suffix for suffix in PAGE_SUFFIXES] + [f"{stem}/{name}" for name in FOLDER_PAGES]:
            if candidate in self.documents:
                return candidate
        return None

    def state(self, document: str, records: Iterable[tuple[str, str]]) -> str:
        """A digest of the statuses of a page's link targets: the page is redone when it changes."""
        descriptor = self.descriptor(document)  # an Antora page shows its component's attributes …
        # A Docusaurus page names its targets by URL: an `id:` or `slug:` moved elsewhere is another target.
        by_url = self.docusaurus is not None and self.docusaurus.holds(document)
        statuses: list[str | list[str]] = []
        for url, kind in records:
            if kind in PLACE_KINDS:  # where the label or term lands, and the title a page shows for it
                place = self.place(kind, url)
                statuses.append(place.state(kind == LABEL_TITLE) if place is not None else "none")
                continue
            target = self.locate(document, url, kind)[0]
            status = self.status(target) + (":" + target if by_url else "")
            if descriptor is not None and status == "doc":
                status += ":" + self.titles.get(target, "")  # … and the titles of the pages it links to
            statuses.append(status)
        mkdocs = self.is_mkdocs(document)  # … and renders MkDocs' Markdown, as long as an mkdocs.yml publishes it
        if not statuses and descriptor is None and not mkdocs:
            return NO_LINKS_STATE
        return hashlib.sha256(json.dumps([self._where, statuses, descriptor, mkdocs]).encode()).hexdigest()[:16]

    def place(self, kind: str, name: str) -> Place | None:
        """Where the label or glossary term `name` (as the manifest records it) lands, if one place."""
        if kind == TERM:
            return self.places.terms.get(name)
        found = self.places.labels.get(name)
        if found is None and kind == LABEL:  # a label before a paragraph or a list: only a titled `:ref:`
            found = self.places.blocks.get(name)  # links there, having no section title to show
        return found

    def title_of(self, document: str, url: str) -> str:
        """The title of the document `url` (as written in `document`) names; "" for none."""
        target = self.locate(document, url)[0]
        title = self.titles.get(target, "") if self.status(target) == "doc" else ""
        descriptor = self.descriptor(target)
        if descriptor is not None and "{page-component-" in title:  # as Antora shows `What's New in 2.1`
            for name, field in (("name", ANTORA_NAME), ("version", ANTORA_VERSION)):
                title = title.replace(f"{{page-component-{name}}}", antora_name(descriptor, field))
        return title

    def descriptor(self, document: str) -> str | None:
        """The text of the antora.yml of the Antora component that holds `document`, if one does."""
        module = antora.module_of(document, self.antora) if self.antora else None
        return self.descriptors[antora.descriptor_path(module)] if module else None


# `SiteTargets.state` of a page without links, worked out once (asked for every unchanged page).
NO_LINKS_STATE = hashlib.sha256(b"[]").hexdigest()[:16]


# The source folder a VitePress config names, when it is written as a string literal (`srcDir: 'src'`),
# and MkDocs' `docs_dir:` line (the YAML of mkdocs.yml holds tags only MkDocs' own loader reads).
VITEPRESS_SRC_DIR = re.compile(r"""\bsrcDir\s*:\s*(['"`])([^'"`\n]+)\1""")
ANTORA_FIELD = r"""^{}\s*:\s*(['"]?)([^'"#\n]+?)\1\s*(?:#.*)?$"""
ANTORA_NAME = re.compile(ANTORA_FIELD.format("name"), re.MULTILINE)
ANTORA_VERSION = re.compile(ANTORA_FIELD.format("version"), re.MULTILINE)
MKDOCS_DOCS_DIR = re.compile(ANTORA_FIELD.format("docs_dir"), re.MULTILINE)
MKDOCS_FILE_URLS = re.compile(r"^use_directory_urls\s*:\s*(?:false|no|off)\s*(?:#.*)?$", re.MULTILINE | re.IGNORECASE)


def is_framework_file(path: str) -> bool:
    """Whether `path` is a docs framework's config file: where its docs root is, or (Antora's
    `antora.yml`) how its pages name files."""
    # Asked of every file under the roots, twice a build: string methods, not path objects.
    folder, _, name = path.rpartition("/")
    if name.startswith("config."):
        return folder.rpartition("/")[2] == ".vitepress"
    return (
        name in MKDOCS_FILES
        or name == SPHINX_CONF
        or name.startswith("docusaurus.config.")
        or name == antora.DESCRIPTOR
    )


def antora_name(text: str, field: re.Pattern[str] = ANTORA_NAME) -> str:
    """The component name an antora.yml gives (`name: asciidoctor`), "" without one (or another top-level field)."""
    found = field.search(text)
    return found.group(2).strip() if found else ""


def above_roots(roots: Iterable[str]) -> tuple[str, ...]:
    """Each root's folder and every parent of it ("" is the repository's root)."""
    folders: set[str] = set()
    for root in roots:
        folder = "" if root in ("", ".") else posixpath.normpath(root)
        while True:
            folders.add(folder)
            if not folder:
                break
            folder = posixpath.dirname(folder)
    return tuple(sorted(folders))


def framework_candidates(roots: Iterable[str]) -> list[str]:
    """The paths a docs framework's config file may have above each root (its folder and every parent)."""
    folders = above_roots(roots)
    names = [f".vitepress/config.{ext}" for ext in ("js", "ts", "mjs", "mts", "cjs", "cts")]
    names += sorted(MKDOCS_FILES) + list(docusaurus.CONFIG_NAMES)
    names.append(SPHINX_CONF)
    names.append(antora.DESCRIPTOR)
    names.append(docusaurus.VERSIONS_FILE)  # beside a Docusaurus config: its released versions
    return [posixpath.join(folder, name) for folder in folders for name in names]


def detect_docs_roots(files: Iterable[str], frameworks: Mapping[str, str] = {}) -> tuple[str, ...]:
    """The docs roots the frameworks' own files name: VitePress (its folder, or its `srcDir`),
    MkDocs (`docs_dir`, `docs` by default), Docusaurus (its folder), Sphinx (the folder of a
    `conf.py` that sets what Sphinx reads: a `conf.py` is not always Sphinx's). `frameworks` holds
    the text of the config files found (path → text); one without text is read with the
    framework's defaults."""
    found: set[str] = set()
    for path in sorted(set(files) | set(frameworks)):
        if not is_framework_file(path) or antora.is_descriptor(path):
            continue
        folder, name = posixpath.split(path)
        text = frameworks.get(path, "")
        if posixpath.basename(folder) == ".vitepress":
            site = posixpath.dirname(folder)
            source = VITEPRESS_SRC_DIR.search(text)
            found.add(_inside(site, source.group(2)) if source else site)
        elif name in MKDOCS_FILES:
            found.add(_mkdocs_docs_dir(folder, text))
        elif name == SPHINX_CONF:
            if SPHINX_SETTING.search(text):
                found.add(folder)
        else:
            found.add(folder)
    return tuple(sorted(found))


def directory_url_roots(frameworks: Mapping[str, str]) -> list[str]:
    """The docs roots MkDocs publishes with directory URLs (`setup/x.md` at `setup/x/`, its default)."""
    return [root for root, text in mkdocs_docs_dirs(frameworks) if not MKDOCS_FILE_URLS.search(text)]


def mkdocs_docs_dirs(frameworks: Mapping[str, str]) -> list[tuple[str, str]]:
    """The docs_dir of each mkdocs.yml among `frameworks`, with the text of that mkdocs.yml."""
    found = []
    for path, text in frameworks.items():
        folder, name = posixpath.split(path)
        if name in MKDOCS_FILES:
            found.append((_mkdocs_docs_dir(folder, text), text))
    return found


def _mkdocs_docs_dir(folder: str, text: str) -> str:
    """The `docs_dir` the mkdocs.yml in `folder` names (`docs` beside it by default)."""
    docs = MKDOCS_DOCS_DIR.search(text)
    return _inside(folder, docs.group(2).strip() if docs else "docs")


def _inside(folder: str, relative: str) -> str:
    """`relative` (a framework's setting) under `folder`; `folder` itself if it would leave the repository."""
    relative = relative.strip()
    if relative.startswith("/"):  # a path of the writer's machine
        return folder
    joined = posixpath.normpath(posixpath.join(folder, relative))
    if joined == ".":
        return ""
    return folder if joined == ".." or joined.startswith("../") else joined


def is_external(url: str) -> bool:
    return bool(SCHEME.match(url)) or url.startswith("//")


def target_of(document: str, url: str) -> tuple[str, str, str]:
    """The repository path a relative link names, with its query and fragment (each with its sign).

    The path is "" when the link climbs out of the repository. A leading `/` is the
    repository's root, as in a repository browser.
    """
    rest, _, fragment = url.partition("#")
    path, _, query = rest.partition("?")
    path = unquote(path)
    joined = path.lstrip("/") if path.startswith("/") else posixpath.join(posixpath.dirname(document), path)
    normal = posixpath.normpath(joined) if joined else ""
    if normal in (".", "..") or normal.startswith("../"):
        normal = ""
    return normal, ("?" + query if query else ""), ("#" + fragment if fragment else "")


def page_url_document(document: str) -> str:
    """A document standing where MkDocs publishes `document`'s page: `setup/x.md` is served at
    `setup/x/`, so its raw HTML's relative links start there (an index page is its folder's)."""
    folder, _, name = document.rpartition("/")
    stem = name.rpartition(".")[0] or name
    if stem.lower() in ("index", "readme"):
        return document
    return posixpath.join(folder, stem, name)


def publish_path(target: str, blob: str, kind: str) -> tuple[str, str | None]:
    """Where a linked corpus file is published (site path), or the blob of an SVG to inline."""
    suffix = PurePosixPath(target).suffix.lower()
    if kind in IMAGE_KINDS and suffix in SVG_SUFFIXES:
        return "", blob
    if not SUFFIX.fullmatch(suffix):
        suffix = ""
    if suffix in ACTIVE_SUFFIXES:
        suffix = ".txt"
    return f"files/{blob}{suffix}", None


def outcome(document: str, url: str, kind: str, targets: SiteTargets) -> Outcome:
    """What the relative link `url` in `document` becomes (pure: the same inputs, the same page)."""
    root = root_prefix(doc_page_path(document))
    target, query, fragment = targets.locate(document, url, kind)
    status = targets.status(target)
    if status == "outside":
        return Outcome(None, "it points outside the repository")
    if status == "missing":
        why = targets.why_missing(document, url)
        return Outcome(None, why or f"{target!r} is not a document or a file of the corpus")
    suffix = PurePosixPath(target).suffix.lower()
    if kind in IMAGE_KINDS:
        # An SVG is text, so it is also a document; as an image it is still the committed file.
        image = targets.files.get(target)
        if image is None or suffix not in IMAGE_SUFFIXES | SVG_SUFFIXES:
            return Outcome(None, f"{target!r} is not an image")
        blob = image
        rel, svg = publish_path(target, blob, IMAGE)
        if svg:
            return Outcome("", svg_blob=svg)
        return Outcome(root + rel, publish=(rel, blob))
    if status == "doc":
        anchor = "#" + heading_fragment(fragment[1:]) if fragment else ""
        return Outcome(root + url_path(doc_page_path(target)) + query + anchor)
    if status.startswith("dir"):
        page = status[4:]
        if page:
            return Outcome(root + url_path(doc_page_path(f"{target}/{page}")))
        return Outcome(root + "index.html")
    blob = status[5:]
    rel, _ = publish_path(target, blob, LINK)
    return Outcome(root + rel + fragment, publish=(rel, blob))


class DocumentLinks:
    """Resolves the links of one document page while it is rendered, and keeps them.

    `records` are the relative links as written, with their kind (link or image, Markdown or raw HTML): what the
    manifest stores. `broken` and `published` are what the build reports and writes.
    """

    def __init__(self, document: str, targets: SiteTargets, read_blob: Callable[[str], bytes]):
        self.document = document
        self.targets = targets
        self.read_blob = read_blob
        self.records: list[tuple[str, str]] = []
        self._recorded: set[tuple[str, str]] = set()

    def resolve(self, url: str, kind: str) -> str | None:
        """The href (or src) for `url` as written; None when the link is broken."""
        url = url.strip()
        if not url:
            return None if kind in IMAGE_KINDS else ""
        if url.startswith("#"):
            return "#" + heading_fragment(url[1:])
        if is_external(url) and not self.targets.is_resource_id(self.document, url):
            return url
        if (url, kind) not in self._recorded:  # a link written twice is one record, reported once
            self._recorded.add((url, kind))
            self.records.append((url, kind))
        result = outcome(self.document, url, kind, self.targets)
        if result.svg_blob:
            data = base64.b64encode(self.read_blob(result.svg_blob)).decode("ascii")
            return "data:image/svg+xml;base64," + data
        return result.href

    @property
    def mkdocs(self) -> bool:
        """Whether the document is an MkDocs page (its Markdown has MkDocs' extensions)."""
        return self.targets.is_mkdocs(self.document)

    def forget(self) -> None:
        """Forget the links resolved so far: the page is being rendered again."""
        self.records.clear()
        self._recorded.clear()

    def resolve_first(self, candidates: Iterable[str], fragment: str = "") -> str | None:
        """The href of the first relative link among `candidates` whose target is a document, if any
        (a Sphinx `:doc:` target has no suffix: `intro` may be `intro.rst` or `intro.md`)."""
        for url in candidates:
            if url and self.targets.status(self.targets.locate(self.document, url)[0]) == "doc":
                return self.resolve(url + fragment, LINK)
        return None

    def resolve_place(self, kind: str, name: str) -> tuple[str, str] | None:
        """The href and the title of the place a Sphinx label or glossary term of another document names
        (`kind` LABEL, LABEL_TITLE or TERM, `name` as `rst_places` keys it), recorded so the page is rendered
        again when that place changes; None when it names no one place of another document."""
        if (name, kind) not in self._recorded:
            self._recorded.add((name, kind))
            self.records.append((name, kind))
        place = self.targets.place(kind, name)
        if place is None or place.document == self.document or self.targets.status(place.document) != "doc":
            return None
        page = url_path(doc_page_path(place.document))
        return root_prefix(doc_page_path(self.document)) + page + "#" + place.anchor, place.title

    def resolve_named(self, names: Iterable[str], fragment: str = "") -> str | None:
        """The href of the first published document with one of these names (nearest folder first),
        for a role that names a document by number (`:pep:`8`` is `pep-0008.rst`)."""
        here = posixpath.dirname(self.document)
        for name in names:
            found = self.targets.named(name)
            if found:
                nearest = min(found, key=lambda path: (posixpath.dirname(path) != here, path))
                return self.resolve(relative_url(self.document, nearest) + fragment, LINK)
        return None


def relative_url(document: str, target: str) -> str:
    """The relative link from `document` to the repository path `target`, as a writer would put it."""
    return posixpath.relpath(target, posixpath.dirname(document) or ".")


def link_report(
    document: str, records: Iterable[tuple[str, str]], targets: SiteTargets
) -> tuple[list[BrokenLink], dict[str, str]]:
    """The broken links of a page and the files its links publish (site path → blob)."""
    broken: list[BrokenLink] = []
    published: dict[str, str] = {}
    for url, kind in records:
        if kind in PLACE_KINDS:  # a label or term nowhere is text, as Sphinx's own: no broken link
            continue
        result = outcome(document, url, kind, targets)
        if result.href is None:
            broken.append(BrokenLink(document, unquote(url), result.reason))
        if result.publish:
            published[result.publish[0]] = result.publish[1]
    return broken, published
