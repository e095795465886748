"""A Docusaurus site as its readers reach it: the URL of each document, and what a link there names.

Docusaurus publishes the documents of its docs plugin's folder (`path`, `docs/` beside
`docusaurus.config.*` by default, `'../docs'` in facebook/react-native-website) under the
plugin's `routeBasePath` (`docs` by default). A document's URL is its folder and its *id* —
the front matter's `id:`, or the file's name — unless the front matter sets `slug:` (from the
route base when it starts with `/`, from the document's folder otherwise); a folder's `index.md`,
`README.md` or `<folder>/<folder>.md` is the folder's URL; number prefixes (`01-intro.md`) are
dropped. With released versions (`versions.json` beside the config), the docs folder is served
at `/<route>/next/…` and `/<route>/…` is the last release (`versioned_docs/version-<v>/`).

A writer links a page by a file path (`./x.md`: from the document's folder, then, without `./`
or `../`, from the docs folder and the site's folder, as Docusaurus tries them) or by its URL
(`/docs/next/x`, or `x` from the page's URL folder); a `/` URL that no page answers is a file of
the site's static folders (`static/` beside the config; `staticDirectories` when written as a
list of string literals), served at the site's root. The config is read, not run: its
`path:`/`routeBasePath:` are taken when written as string literals, the defaults otherwise.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import unquote

CONFIG_PREFIX = "docusaurus.config."
CONFIG_NAMES = tuple(CONFIG_PREFIX + ext for ext in ("js", "ts", "mjs", "cjs"))
VERSIONS_FILE = "versions.json"
PAGE_SUFFIXES = (".md", ".mdx")
# Where each plugin's options start: the classic preset's `docs: {`/`blog: {`, or a plugin named
# `content-docs` (`@docusaurus/plugin-content-docs`); a `path:` belongs to the nearest one before it.
_PLUGIN = re.compile(r"""\b(docs|blog)\s*:\s*\{|['"](?:@docusaurus/plugin-)?content-(docs|blog)['"]""")
# A plugin's name in an import (`import type … from '@docusaurus/plugin-content-docs'`) sets no options.
_IMPORTED = re.compile(r"\b(?:from|import|require)\b")
_LITERAL = r"""\s*:\s*(['"`])([^'"`\n]*)\1"""
_PATH = re.compile(r"\bpath" + _LITERAL)
_ROUTE = re.compile(r"\brouteBasePath" + _LITERAL)
_LAST_VERSION = re.compile(r"\blastVersion" + _LITERAL)
_STATIC = re.compile(r"\bstaticDirectories\s*:\s*\[([^\]]*)\]")
_DETECT_FORMAT = re.compile(r"""\bformat\s*:\s*(['"`])detect\1""")
_STRING = re.compile(r"""(['"`])([^'"`\n]+)\1""")
_NUMBER_PREFIX = re.compile(r"^\d+\s*[-_.]+\s*(?=[^-_.\s])")
_FRONT_FIELD = re.compile(r"""^(id|slug)\s*:\s*(['"]?)(.*?)\2\s*$""", re.MULTILINE)
DEFAULT_ROUTES = {"docs": "docs", "blog": "blog"}


@dataclass(frozen=True)
class Content:
    """One content folder of a Docusaurus site: a docs plugin's, or a version of it, or a blog."""

    kind: str  # "docs" or "blog"
    folder: str  # the repository path of its files
    route: str  # its URL path from the site's root, without slashes ("docs/next", "architecture")
    label: str = ""  # a released version's name ("0.86"), for what a broken link says


@dataclass(frozen=True)
class Site:
    """A `docusaurus.config.*`: the site's folder, its content folders and its static folders."""

    folder: str
    contents: tuple[Content, ...]
    static: tuple[str, ...]
    md_is_mdx: bool = True  # `markdown: {format: 'detect'}` reads `.md` as CommonMark, only `.mdx` as MDX


def is_config(path: str) -> bool:
    return path.rpartition("/")[2].startswith(CONFIG_PREFIX)


def beside_candidates(folders: Iterable[str]) -> list[str]:
    """The paths a Docusaurus config (and its `versions.json`) may have in each of `folders`: a site's folder
    often stands beside the docs it publishes (`website/` with `path: '../docs'`), not above them."""
    return [posixpath.join(folder, name) for folder in folders for name in (*CONFIG_NAMES, VERSIONS_FILE)]


def sites(frameworks: Mapping[str, str]) -> list[Site]:
    """The Docusaurus sites whose configs `frameworks` holds (path → text; `versions.json` beside one)."""
    found = []
    for path, text in sorted(frameworks.items()):
        if is_config(path):
            folder = posixpath.dirname(path)
            versions = _versions(frameworks.get(posixpath.join(folder, VERSIONS_FILE), ""))
            contents, static = _contents(folder, text, versions), _static_folders(folder, text)
            found.append(Site(folder, contents, static, not _DETECT_FORMAT.search(text)))
    return found


def _contents(folder: str, text: str, versions: list[str]) -> tuple[Content, ...]:
    marks = [
        m for m in _PLUGIN.finditer(text) if not _IMPORTED.search(text, text.rfind("\n", 0, m.start()) + 1, m.start())
    ]
    options = [
        (m.group(1) or m.group(2), text[m.end() : following.start() if following else len(text)])
        for m, following in zip(marks, [*marks[1:], None], strict=True)
    ]
    if not any(kind == "docs" for kind, _ in options):
        options.insert(0, ("docs", ""))
    contents: list[Content] = []
    first_docs = True
    for kind, written in options:
        path, route = _PATH.search(written), _ROUTE.search(written)
        content = _within(folder, path.group(2) if path else kind)
        base = (route.group(2) if route else DEFAULT_ROUTES[kind]).strip("/")
        if content is None or any(c.folder == content for c in contents):
            continue
        if kind == "docs" and first_docs and versions:  # the preset's docs: the one `versions.json` is of
            last = _LAST_VERSION.search(written)
            current_last = last is not None and last.group(2) == "current"
            contents.append(Content(kind, content, base if current_last else _join(base, "next")))
            for number, version in enumerate(versions):
                route_of = base if number == 0 and not current_last else _join(base, version)
                versioned = posixpath.join(folder, "versioned_docs", f"version-{version}")
                contents.append(Content(kind, versioned, route_of, version))
        else:
            contents.append(Content(kind, content, base))
        first_docs = first_docs and kind != "docs"
    return tuple(contents)


def _versions(text: str) -> list[str]:
    try:
        listed = json.loads(text) if text else []
    except ValueError:
        return []
    return [v for v in listed if isinstance(v, str) and v and "/" not in v] if isinstance(listed, list) else []


def _static_folders(folder: str, text: str) -> tuple[str, ...]:
    written = _STATIC.search(text)
    names = [m.group(2) for m in _STRING.finditer(written.group(1))] if written else ["static"]
    return tuple(dict.fromkeys(f for f in (_within(folder, name) for name in names) if f is not None))


def _within(folder: str, relative: str) -> str | None:
    """`relative` (a config's setting) from `folder`; None when it leaves the repository or is absolute."""
    if not relative.strip() or relative.startswith("/"):
        return None
    joined = posixpath.normpath(posixpath.join(folder, relative.strip()))
    if joined == ".." or joined.startswith("../"):
        return None
    return "" if joined == "." else joined


def _join(*parts: str) -> str:
    return "/".join(part.strip("/") for part in parts if part.strip("/"))


def static_folders(frameworks: Mapping[str, str]) -> list[str]:
    """The static folders of every Docusaurus site `frameworks` holds: their files are served at the site's root."""
    return sorted({folder for site in sites(frameworks) for folder in site.static})


def content_folders(frameworks: Mapping[str, str]) -> list[str]:
    """The docs folders of every Docusaurus site: where a document's front matter names its URL."""
    return sorted({c.folder for site in sites(frameworks) for c in site.contents if c.kind == "docs"})


def front_matter_fields(text: str) -> dict[str, str]:
    """The `id:` and `slug:` of a document's front matter (a `---` block at its top), as written."""
    if not text.startswith("---"):
        return {}
    end = text.find("\n---", 3)
    block = text[3 : end if end >= 0 else 0]
    return {m.group(1): m.group(3).strip() for m in _FRONT_FIELD.finditer(block) if m.group(3).strip()}


def _unprefixed(name: str) -> str:
    return _NUMBER_PREFIX.sub("", name)


def document_url(content: Content, document: str, fields: Mapping[str, str]) -> str:
    """The URL path (no slashes at its ends) Docusaurus publishes `document` of `content` at."""
    relative = document[len(content.folder) + 1 :] if content.folder else document
    folder, _, name = relative.rpartition("/")
    stem = _unprefixed(name.rpartition(".")[0] or name)
    folder = "/".join(_unprefixed(part) for part in folder.split("/")) if folder else ""
    slug = fields.get("slug", "")
    if slug:
        path = slug if slug.startswith("/") else _join(folder, slug)
    elif stem.lower() in ("index", "readme") or (folder and stem.lower() == folder.rpartition("/")[2].lower()):
        path = folder
    else:
        path = _join(folder, fields.get("id") or stem)
    return _join(content.route, posixpath.normpath("/" + path))


class Docusaurus:
    """The Docusaurus sites of a build, with the URL of each of their documents."""

    def __init__(
        self, frameworks: Mapping[str, str], documents: Iterable[str], front_matter: Mapping[str, Mapping[str, str]]
    ):
        self.sites = sites(frameworks)
        self.contents = sorted(
            ((site, content) for site in self.sites for content in site.contents),
            key=lambda pair: len(pair[1].folder),
            reverse=True,  # a document belongs to the innermost content folder (a version's under `website/`)
        )
        self.urls: dict[str, str] = {}  # document → its URL path
        self.routes: dict[str, str] = {}  # URL path → document
        for document in sorted(documents):
            found = self.content_of(document)
            if found and found[1].kind == "docs" and document.endswith(PAGE_SUFFIXES):
                url = document_url(found[1], document, front_matter.get(document, {}))
                self.urls[document] = url
                self.routes.setdefault(url, document)

    def content_of(self, document: str) -> tuple[Site, Content] | None:
        for site, content in self.contents:
            if not content.folder or document.startswith(content.folder + "/"):
                return site, content
        return None

    def holds(self, document: str) -> bool:
        """Whether `document` is a page of a Docusaurus docs folder, published at a URL of its own."""
        return document in self.urls

    def is_mdx(self, document: str) -> bool:
        """Whether Docusaurus reads `document` as MDX: an `.mdx` file, or an `.md` one under a site's folder."""
        if document.endswith(".mdx"):
            return True
        found = self.content_of(document) if self.holds(document) else None
        around = [found[0]] if found else [s for s in self.sites if not s.folder or document.startswith(s.folder + "/")]
        return any(site.md_is_mdx for site in around)

    def locate(self, document: str, url: str, exists: Callable[[str], bool]) -> str | None:
        """The repository path the link `url` (path part, as written) of `document` names, as Docusaurus
        resolves it; None when Docusaurus' own rules find nothing."""
        found = self.content_of(document)
        if found is None or document not in self.urls:
            return None
        site, content = found
        path = unquote(url).replace("\\_", "_")  # Prettier escapes `_` in a Markdown link's path
        if path.endswith(PAGE_SUFFIXES):
            return self._file(document, path, site, content, exists)
        absolute = path.startswith("/")
        here = "/" + self.urls[document]
        joined = posixpath.normpath(path if absolute else posixpath.join(posixpath.dirname(here), path))
        route = joined.strip("/")
        if route in self.routes:
            return self.routes[route]
        if absolute:
            for folder in site.static:
                served = posixpath.join(folder, route) if route else ""
                if served and exists(served):
                    return served
        return None

    def _file(
        self, document: str, path: str, site: Site, content: Content, exists: Callable[[str], bool]
    ) -> str | None:
        tried = []
        if not path.startswith(("./", "../")):
            tried += [posixpath.join(content.folder, path.lstrip("/")), posixpath.join(site.folder, path.lstrip("/"))]
        if not path.startswith("/"):
            tried.append(posixpath.join(posixpath.dirname(document), path))
        for candidate in tried:
            normal = posixpath.normpath(candidate)
            if not normal.startswith("../") and exists(normal):
                return normal
        return None

    def why_missing(self, document: str, url: str) -> str | None:
        """What a `/` link of `document` to nothing names on the site, when it is a page of a content
        folder the build does not hold (another plugin's, a blog, a released version)."""
        found = self.content_of(document)
        path = unquote(url).partition("#")[0].partition("?")[0]
        if found is None or document not in self.urls or not path.startswith("/"):
            return None
        route = posixpath.normpath(path).strip("/")
        name = route.rpartition("/")[2]
        if "." in name and not name.endswith(PAGE_SUFFIXES):
            return None  # a file (`/docs/assets/x.gif`): the static folders' question, not a page's
        for content in sorted(found[0].contents, key=lambda c: len(c.route), reverse=True):
            if content.route and (route == content.route or route.startswith(content.route + "/")):
                if content.folder == found[1].folder:
                    return None
                what = f"the released version {content.label}'s docs" if content.label else f"the site's {content.kind}"
                return f"a page of {what} ({content.folder or '.'}), which is not under the roots"
        return None
