"""The budget every view of a document runs under (docs/design.md#d17): size, nesting and time.

One committed file must not hang or crash the site build. Before a document is rendered, its
size is checked against the renderer's cap and, for Markdown, its nesting is measured from the
parser's events (pulldown-cmark is linear; the sanitizer's HTML tree builder is not, on deep
nesting); then the renderer runs under a CPU-time limit (extract/base.py's `cpu_limit`: in the
main thread a CPU-time timer that stops pure-Python work — docutils, Pygments, the AsciiDoc
outline — where it stands). It counts the CPU the rendering used, not the time on the clock, so
a loaded machine decides as an idle one does; only a rendering that waits without using CPU
(Asciidoctor's process not answering) meets the limit's much larger wall-clock backstop
(`wall_backstop`). Asciidoctor's own CPU is limited in its process (site/asciidoc_view.py). A
document over budget gets no rendered view: its page shows the source and says why, and the
build summary lists it. The limits are fixed, so every build of a commit decides alike.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

import pyromark

from indexer.errors import CpuLimitExceeded, ExtractionHung
from indexer.extract.base import cpu_limit, wall_backstop
from indexer.site.markdown import view_options  # the options the Markdown view parses with

# A rendered view (Markdown, reST) of more text than this is not made: the source view shows it.
MAX_RENDER_BYTES = 1_000_000
# The AsciiDoc outline is a line scan: it may read more.
MAX_OUTLINE_BYTES = 5_000_000
# Nested blocks and inline elements; a real document rarely passes 15.
MAX_NESTING = 100
# The CPU one document's rendering may use, end to end (this process's; Asciidoctor's its own).
RENDER_SECONDS = 20.0

T = TypeVar("T")


@dataclass(frozen=True)
class Budgeted(Generic[T]):
    """What a renderer gave within the budget (`value`), or why it gave nothing (`refused`)."""

    value: T | None
    refused: str | None = None
    # Stopped as hung (the wall-clock backstop), which says nothing about the text: the next
    # build renders it again rather than reusing the page.
    hung: bool = False


def markdown_nesting(text: str) -> int:
    """The deepest nesting of the Markdown's blocks and inline elements, from pulldown-cmark's events."""
    depth = deepest = 0
    for event in pyromark.events(text, options=view_options(text)):
        if isinstance(event, dict):
            if "Start" in event:
                depth += 1
                deepest = max(deepest, depth)
            elif "End" in event:
                depth -= 1
    return deepest


def refusal(fmt: str, text: str) -> str | None:
    """Why `text` in format `fmt` gets no rendered view; None when it is within the budget."""
    size = len(text.encode("utf-8", "surrogatepass"))
    cap = MAX_OUTLINE_BYTES if fmt == "asciidoc" else MAX_RENDER_BYTES
    if size > cap:
        return f"{size:,} bytes is more than the {cap:,} a {fmt} view renders"
    if fmt == "markdown":
        nesting = markdown_nesting(text)
        if nesting > MAX_NESTING:
            return f"nested {nesting:,} deep, more than the {MAX_NESTING} a markdown view renders"
    return None


def within_budget(fmt: str, path: str, text: str, render: Callable[[], T]) -> Budgeted[T]:
    """`render()` when `text` is within the budget and it finishes in time; otherwise the reason."""
    reason = refusal(fmt, text)
    if reason is not None:
        return Budgeted(None, reason)
    try:
        with cpu_limit(RENDER_SECONDS, path, setting="the render budget", what="rendering"):
            return Budgeted(render())
    except CpuLimitExceeded:
        return Budgeted(None, f"rendering used more than {RENDER_SECONDS:g} s of CPU")
    except ExtractionHung:
        stopped = f"rendering was stopped as hung after {wall_backstop(RENDER_SECONDS):g} s of wall-clock time"
        return Budgeted(None, stopped, hung=True)
    except RecursionError:
        return Budgeted(None, "nested too deep to render")
