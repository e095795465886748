"""HTML for the static site: the Jinja2 environment, site paths and the source view.

Corpus text reaches a page only through `source_view` (escaped here), `markdown_view`
(`indexer.site.markdown`: sanitized) or through Jinja2 with autoescape on. The source view
keeps the document text exactly: the text content of its `<pre>` is the document text, code
point for code point (carriage returns are written as `&#13;` because an HTML parser would
otherwise turn them into line feeds), so the browser can turn a selection into code-point
offsets by counting text.
Line numbers and page markers are drawn by CSS, never text.

A line is `<span id=L12>` and nothing more (a version page is mostly lines, and the site keeps
every version): its number is a CSS counter, and the line-number links a reader can follow with
the keyboard are added by the page's script, which is also what turns them into citations.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from urllib.parse import quote

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, StrictUndefined, select_autoescape
from jinja2.sandbox import SandboxedEnvironment
from markupsafe import Markup, escape

from indexer.errors import ConfigError
from indexer.text.chunk import Passage
from indexer.text.citation import identity_token

# Bump when the HTML of a version or document page changes shape, so reused pages are redone.
RENDER_VERSION = 3


def shipped_templates() -> Path:
    """The templates shipped in the wheel, or the repository's top-level folder (editable installs)."""
    packaged = resources.files("indexer") / "site_templates"
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[2] / "site_templates"


def template_folders(repo_root: Path, template_dir: str | None) -> list[Path]:
    """User folder first (it overrides), then the shipped templates."""
    folders = []
    if template_dir:
        user = (repo_root / template_dir).resolve()
        if not user.is_dir():
            raise ConfigError(
                f"template_dir {template_dir!r}: no such folder under {repo_root}",
                hint="create it, or remove `template_dir` from the pincite settings",
            )
        folders.append(user)
    folders.append(shipped_templates())
    return folders


def make_environment(folders: Sequence[Path]) -> Environment:
    # Sandboxed: a `template_dir` comes with the repository (maybe from a pull request), and a plain
    # Environment lets a template reach Python internals and run commands on the build machine.
    env = SandboxedEnvironment(
        loader=ChoiceLoader([FileSystemLoader(str(f)) for f in folders]),
        autoescape=select_autoescape(["html", "xml"], default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["urlpath"] = url_path
    env.filters["utc"] = utc_time
    env.filters["breakable"] = breakable_path
    env.filters["identity_token"] = identity_token  # what a citation of an extracted page names
    return env


def breakable_path(path: str) -> Markup:
    """A path that a narrow screen may break after its slashes (rather than inside a name)."""
    return Markup("/<wbr>").join(escape(part) for part in path.split("/"))


def fingerprint(folders: Sequence[Path], *extra: str) -> str:
    """Changes when any template or asset (or an `extra` setting) changes: reused pages must match it."""
    digest = hashlib.sha256(f"render/{RENDER_VERSION}".encode())
    for folder in folders:
        for file in sorted(p for p in folder.rglob("*") if p.is_file()):
            digest.update(str(file.relative_to(folder)).encode("utf-8", "surrogateescape"))
            digest.update(file.read_bytes())
    for value in extra:
        digest.update(b"\0" + value.encode("utf-8", "surrogateescape"))
    return digest.hexdigest()[:20]


def utc_time(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, tz=UTC).strftime("%Y-%m-%d %H:%M UTC")


def url_path(path: str) -> str:
    """A repository path as it appears in site URLs (the permalink contract's encoding)."""
    return quote(path, safe="/")


def history_name(path: str) -> str:
    """File name of a path's history JSON: FNV-1a 64 of its UTF-8 bytes (the page's JS computes the same)."""
    value = 0xCBF29CE484222325
    for byte in path.encode("utf-8", "surrogateescape"):
        value ^= byte
        value = (value * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{value:016x}"


def history_shard(path: str) -> str:
    """The history file holding a path's entry: 256 shards by the first byte of its name."""
    return history_name(path)[:2]


def doc_page_path(path: str) -> str:
    """Where a document's page lives in the site, relative to its root."""
    return f"doc/{path}.html"


def root_prefix(page_path: str) -> str:
    return "../" * page_path.count("/")


# -- the source view -------------------------------------------------------------------


def _escape_text(text: str) -> str:
    # The text goes between tags, never into an attribute: "&" and "<" are all an HTML parser reads
    # there (">" is escaped too, by habit), so quotes stay one byte, as prose is full of them. "\r" is
    # written as a reference because a parser would turn it into a line feed.
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\r", "&#13;")


def source_view(
    text: str,
    passages: Sequence[Passage] = (),
    page_starts: Sequence[int] = (),
    page_href: str | None = None,
) -> Markup:
    """The document text as lines with anchors `L{n}`, passage anchors `p{n}` and page markers."""
    lines = text.split("\n")
    if lines and lines[-1] == "" and len(lines) > 1:
        lines.pop()
        trailing_newline = True
    else:
        trailing_newline = False
    passage_at: dict[int, list[int]] = {}
    page_at: dict[int, list[int]] = {}
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    for passage in passages:
        passage_at.setdefault(bisect_right(starts, passage.start), []).append(passage.ordinal)
    if page_href:
        page_at[1] = [1]
    for page, offset in enumerate(page_starts, start=2):
        page_at.setdefault(bisect_right(starts, offset), []).append(page)
    out: list[str] = []
    last = len(lines)
    escaped = _escape_text(text).split("\n")
    for n, line in enumerate(escaped[:last], start=1):
        marks = "".join(f"<i id=p{o}></i>" for o in passage_at.get(n, ()))
        for page in page_at.get(n, ()):
            href = f' href="{escape(page_href)}#page={page}"' if page_href else ""
            marks += f'<a class="pg" id="page-{page}" data-page="{page}"{href} aria-label="page {page}"></a>'
        end = "\n" if n < last or trailing_newline else ""
        out.append(f"<span id=L{n}>{marks}{line}{end}</span>")
    return Markup("".join(out))


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"  # pragma: no cover
