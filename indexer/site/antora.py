"""Antora's resource IDs: how an AsciiDoc page of an Antora docs tree names another file.

An Antora component is the folder holding `antora.yml`; its modules are `modules/<name>/`, each
with its families of files: `pages/`, `images/`, `partials/`, `examples/`, `attachments/`. A page
names a resource by an ID, not a path: `xref:install.adoc[]` is `pages/install.adoc` of the same
module wherever the page stands, `xref:cli:index.adoc[]` the page of module `cli`,
`image::shot.png[]` the module's `images/shot.png`, `include::partial$intro.adoc[]` its
`partials/intro.adoc`, and `xref:asciidoctor:api:load.adoc[]` names the component too.
Asciidoctor writes these IDs into the page as they are (`cli:index.html`, `partial$intro.adoc`):
this module turns one into the repository path it names, for the site's link resolver.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

DESCRIPTOR = "antora.yml"
FAMILIES = {
    "page": "pages",
    "image": "images",
    "partial": "partials",
    "example": "examples",
    "attachment": "attachments",
}
# [version@][component:][module:][family$]relative — the part before a `#` fragment.
_ID = re.compile(
    r"(?:(?P<version>[^:@$#/]+)@)?(?:(?P<first>[^:@$#/]+):)?(?:(?P<second>[^:@$#/]+):)?"
    r"(?:(?P<family>[a-z]+)\$)?(?P<relative>[^:@$#]+)"
)
# Schemes a page links out with; anything else before a colon is an Antora component or module.
# (A script URL is one too: the sanitizer refuses it, as it refuses it anywhere.)
_SCHEMES = frozenset(
    {"http", "https", "ftp", "ftps", "mailto", "tel", "data", "irc", "file", "news", "urn", "xmpp"}
    | {"javascript", "vbscript"}
)


@dataclass(frozen=True)
class Module:
    """Where a document stands in an Antora component: the component's folder, name and module."""

    component: str  # the folder holding antora.yml ("" for the repository's root)
    name: str  # the component's `name:`, when antora.yml gives one
    module: str

    def folder(self, module: str | None = None) -> str:
        return posixpath.join(self.component, "modules", module or self.module)


def is_descriptor(path: str) -> bool:
    return posixpath.basename(path) == DESCRIPTOR


def descriptor_path(module: Module) -> str:
    return posixpath.join(module.component, DESCRIPTOR)


def module_of(document: str, descriptors: dict[str, str]) -> Module | None:
    """The Antora module a document belongs to, if a component (antora.yml → its name) holds it."""
    parts = document.split("/")
    for n in range(len(parts) - 2, -1, -1):
        if parts[n] != "modules" or n + 2 >= len(parts):
            continue
        component = "/".join(parts[:n])
        if posixpath.join(component, DESCRIPTOR) in descriptors:
            return Module(component, descriptors[posixpath.join(component, DESCRIPTOR)], parts[n + 1])
    return None


def is_resource_id(url: str) -> bool:
    """Whether a link that looks like a URL with a scheme (`cli:index.html`) is an Antora resource ID."""
    scheme, colon, rest = url.partition(":")
    return (
        bool(colon)
        and scheme.lower() not in _SCHEMES
        and not rest.startswith("//")
        and bool(_ID.fullmatch(url.split("#")[0]))
    )


def resource_path(module: Module, document: str, url: str, image: bool) -> tuple[str, str] | None:
    """The repository path (and `#fragment`) a resource ID names; None for one of another component."""
    rest, hash_, fragment = url.partition("#")
    found = _ID.fullmatch(rest)
    if not found:
        return None
    first, second = found.group("first"), found.group("second")
    component, name = (first, second) if second else (None, first)
    if component is not None and component != module.name:
        return None
    family = found.group("family") or ("image" if image else "page")
    folder = FAMILIES.get(family)
    if folder is None:
        return None
    relative = found.group("relative")
    if family == "page" and relative.startswith(("./", "../")) and name is None:
        base = posixpath.dirname(document)  # a page ID relative to the page itself
    else:
        base = posixpath.join(module.folder(name), folder)
    path = posixpath.normpath(posixpath.join(base, relative))
    if not path.startswith(module.component + "/" if module.component else ""):
        return None
    return path, hash_ + fragment
