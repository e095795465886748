"""HTML for the static site: the Jinja2 environment, site paths and the source view.

Corpus text reaches a page only through `source_view` (escaped here), `markdown_view`
(`indexer.site.markdown`: sanitized) or through Jinja2 with autoescape on. The source view
keeps the document text exactly: the text content of its `<ol>` is the document text, code
point for code point (carriage returns are written as `&#13;` because an HTML parser would
otherwise turn them into line feeds), so the browser can turn a selection into code-point
offsets by counting text.
Line numbers and page markers are drawn by CSS, never text.

A line is `<li id=L12>` and its text, nothing more (a version page is mostly lines, and the site
keeps every version; a list item needs no end tag): its number is a CSS counter, and the
line-number links a reader can follow with the keyboard are added by the page's script, which
is also what turns them into citations.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, StrictUndefined, Template, select_autoescape
from jinja2.exceptions import SecurityError, TemplateError, TemplateRuntimeError
from jinja2.runtime import Context
from jinja2.sandbox import SandboxedEnvironment
from markupsafe import Markup, escape

from indexer.errors import ConfigError
from indexer.index.store import PassageAnchor
from indexer.text.citation import identity_token

# Bump when the HTML of a version or document page changes shape, so reused pages are redone.
# 9: every id of a reST page under `h-` (a duplicate name's too), AsciiDoc xrefs to `[#L12]`-like anchors;
# 8: an MkDocs page's definition lists, icons, keys, marks, task lists and attribute lists;
# 7: Markdown components shown as their source, reST columns without inline styles, literalinclude links;
# 6: AsciiDoc's kbd, btn and menu macros; 5: admonitions as blocks of prose, not tables
RENDER_VERSION = 9


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


def make_environment(folders: Sequence[Path], *, sandboxed: bool = True) -> Environment:
    """The Jinja environment of a build; `sandboxed` unless every template is one pincite ships.

    A `template_dir` comes with the repository (maybe from a pull request), and a plain
    Environment lets a template reach Python internals and run commands on the build machine.
    The shipped templates alone are pincite's own code: the sandbox's check of every attribute
    access is a sixth of a page's rendering, and the site renders a page per version.
    """
    kind = _BoundedSandbox if sandboxed else Environment
    env = kind(
        loader=ChoiceLoader([FileSystemLoader(str(f)) for f in folders]),
        autoescape=select_autoescape(["html", "xml"], default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        # One build reads each template once: no file check on every page (and every parent
        # template and include it names) to see whether it changed since.
        auto_reload=False,
    )
    env.filters["urlpath"] = url_path
    env.filters["utc"] = utc_time
    env.filters["breakable"] = breakable_path
    env.filters["page_href"] = page_href  # {{ path|page_href("changes") }}
    env.filters["identity_token"] = identity_token  # what a citation of an extracted page names
    return env


# What one expression of a repository's template may make: a string or list this long, a power this large.
MAX_TEMPLATE_ITEMS = 1_000_000
MAX_TEMPLATE_EXPONENT = 10_000


class _BoundedTemplate(Template):
    """A repository template: whatever it raises while rendering is a template error naming its line.

    The sandbox refuses what is unsafe with its own errors (`range(10**7)` is an OverflowError,
    `1/0` a ZeroDivisionError); they are the template's fault, reported as such, never a traceback.
    """

    def render(self, *args: Any, **kwargs: Any) -> str:
        try:
            return super().render(*args, **kwargs)
        except TemplateError:
            raise
        except (ArithmeticError, LookupError, TypeError, ValueError, RecursionError, MemoryError) as exc:
            raise TemplateRuntimeError(f"{_template_line(exc)}{type(exc).__name__}: {exc}") from None


def _template_line(exc: BaseException) -> str:
    """`file:line: ` of the innermost template frame of a traceback (Jinja rewrites them to the template)."""
    where = ""
    tb = exc.__traceback__
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if name.endswith((".html", ".xml", ".txt", ".j2", ".jinja")):
            where = f"{name}:{tb.tb_lineno}: "
        tb = tb.tb_next
    return where


class _BoundedSandbox(SandboxedEnvironment):
    """The sandbox, and a bound on what one `*` or `**` may make: a template cannot fill the memory."""

    template_class = _BoundedTemplate
    intercepted_binops = frozenset({"*", "**"})

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        if operator == "**" and isinstance(right, int) and abs(right) > MAX_TEMPLATE_EXPONENT:
            raise SecurityError(f"an exponent of {right} is more than a template may use ({MAX_TEMPLATE_EXPONENT:,})")
        if operator == "*":
            for items, count in ((left, right), (right, left)):
                made = len(items) * count if isinstance(items, (str, list, tuple)) and isinstance(count, int) else 0
                if made > MAX_TEMPLATE_ITEMS:
                    raise SecurityError(
                        f"a repetition of {made:,} items is more than a template may make ({MAX_TEMPLATE_ITEMS:,})"
                    )
        return super().call_binop(context, operator, left, right)


def breakable_path(path: str) -> Markup:
    """A path that a narrow screen may break after its slashes (rather than inside a name)."""
    # Escaping leaves slashes as they are, so the whole path is escaped once.
    return Markup(str(escape(path)).replace("/", "/<wbr>"))


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


# A history file holds the entries of about this many intervals (a path's stretches of one
# version) at most on average: an entry's bytes follow its intervals (their ranges, steps and
# diffs). The site has 16 times more files each time the history passes 16 times as many; a
# version page reads one of them.
HISTORY_INTERVALS_PER_SHARD = 200


def history_digits(intervals: int) -> int:
    """How many hex digits of a path's name (`history_name`) name its history file, for a history
    of `intervals` path intervals: 2 up to 51,200 (256 files), 3 up to 819,200, then 4."""
    digits = 2
    while digits < 4 and intervals > HISTORY_INTERVALS_PER_SHARD * 16**digits:
        digits += 1
    return digits


def history_shard(path: str, digits: int = 2) -> str:
    """The history file holding a path's entry: the first `digits` hex digits of its name."""
    return history_name(path)[:digits]


# File-system limits every published path keeps to: 255 bytes a name (ext4, APFS, NTFS), and a
# whole path well under PATH_MAX once a site folder is put in front of it.
MAX_NAME_BYTES = 255
MAX_PAGE_PATH_BYTES = 1024
LONG_FOLDER = "~long"
# A path of at most this many characters keeps to both limits whatever it holds: 62 × 4 bytes and
# ".html" are under 255, and with its slashes and a site folder under 1024. Asked of every page.
SHORT_PATH = 62


def site_page(folder: str, path: str) -> str:
    """Where the page of repository `path` lives under `folder` (`doc`, `changes`), relative to the root.

    `folder/<path>.html`, unless a name in it would pass the file system's limits (git allows
    a name of any length): then `folder/~long/<history name>.html`, a hash of the path. The
    page's script finds a page by the same rule (`sitePage` in static/paths.js).
    """
    if len(path) <= SHORT_PATH:  # most paths: no name of it can pass the limits (4 UTF-8 bytes a character at most)
        return f"{folder}/{path}.html"
    parts = path.split("/")
    sizes = [len(part.encode("utf-8", "surrogateescape")) for part in parts]
    sizes[-1] += len(".html")
    if max(sizes) > MAX_NAME_BYTES or sum(sizes) + len(parts) + len(folder) > MAX_PAGE_PATH_BYTES:
        return f"{folder}/{LONG_FOLDER}/{history_name(path)}.html"
    return f"{folder}/{path}.html"


def page_href(path: str, folder: str) -> str:
    """The link to `site_page(folder, path)` from the site's root (a template filter)."""
    return url_path(site_page(folder, path))


def doc_page_path(path: str) -> str:
    """Where a document's page lives in the site, relative to its root."""
    return site_page("doc", path)


def root_prefix(page_path: str) -> str:
    return "../" * page_path.count("/")


class PageWriter:
    """Writes the pages of one site build into its folder (its own, swapped in whole later).

    Each folder is made once: `v/` alone holds a page per version. A page is written in one
    unbuffered call, as the buffered layer's extra system calls per file add up too.
    """

    def __init__(self) -> None:
        self._folders: set[str] = set()

    def write(self, target: Path, html: str) -> None:
        folder = os.path.dirname(target)
        if folder not in self._folders:
            os.makedirs(folder, exist_ok=True)
            self._folders.add(folder)
        data = memoryview(html.encode("utf-8"))
        with open(target, "wb", buffering=0) as file:
            while data:
                data = data[file.write(data) :]


# -- the source view -------------------------------------------------------------------


def _escape_text(text: str) -> str:
    # The text goes between tags, never into an attribute: "&" and "<" are all an HTML parser reads
    # there (">" is escaped too, by habit), so quotes stay one byte, as prose is full of them. "\r" is
    # written as a reference because a parser would turn it into a line feed.
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\r", "&#13;")


def source_view(
    text: str,
    passages: Sequence[PassageAnchor] = (),
    page_starts: Sequence[int] = (),
    page_href: str | None = None,
    extra_marks: dict[int, str] | None = None,
) -> Markup:
    """The document text as lines with anchors `L{n}`, passage anchors `p{n}` and page markers
    (and `extra_marks`, empty elements that open their lines: the gutter marks of cited lines)."""
    lines = _escape_text(text).split("\n")
    trailing_newline = len(lines) > 1 and lines[-1] == ""
    if trailing_newline:
        lines.pop()
    last = len(lines)
    # Most lines carry no mark: each is one f-string, and the few marked lines are written again.
    out = [f"<li id=L{n}>{line}\n" for n, line in enumerate(lines, start=1)]
    marks = _line_marks(text, last, passages, page_starts, page_href)
    for n, mark in (extra_marks or {}).items():
        marks[n] = mark + marks.get(n, "")
    for n, mark in marks.items():
        out[n - 1] = f"<li id=L{n}>{mark}{lines[n - 1]}\n"
    if not trailing_newline:
        out[-1] = f"<li id=L{last}>{marks.get(last, '')}{lines[-1]}"
    return Markup("".join(out))


def _line_marks(
    text: str, last: int, passages: Sequence[PassageAnchor], page_starts: Sequence[int], page_href: str | None
) -> dict[int, str]:
    """The anchors that open each marked line: passage starts, then page markers."""
    marks: dict[int, str] = {}
    for passage, n in zip(passages, _lines_of(text, [p.start for p in passages], last), strict=True):
        marks[n] = marks.get(n, "") + f"<i id=p{passage.ordinal}></i>"
    pages = [(1, 1)] if page_href else []
    pages += [(n, page) for page, n in enumerate(_lines_of(text, page_starts, last), start=2)]
    for n, page in pages:
        href = f' href="{escape(page_href)}#page={page}"' if page_href else ""
        mark = f'<a class="pg" id="page-{page}" data-page="{page}"{href} aria-label="page {page}"></a>'
        marks[n] = marks.get(n, "") + mark
    return marks


def _lines_of(text: str, offsets: Sequence[int], last: int) -> list[int]:
    """The line of each offset; an offset past the last line's end (a trailing newline) stays on it.

    Offsets come in order (passage starts, page starts), so the newlines are counted once, from
    each offset to the next, not from the start of the text for every one.
    """
    lines: list[int] = []
    line, counted_to = 1, 0
    for offset in offsets:
        if offset < counted_to:  # out of order: count from the start again
            line, counted_to = 1, 0
        line += text.count("\n", counted_to, offset)
        counted_to = offset
        lines.append(min(line, last))
    return lines


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"  # pragma: no cover
