"""The rendered view of an AsciiDoc document, by Asciidoctor, the reference implementation (docs/design.md#d18).

Asciidoctor is an optional system dependency (Debian's `asciidoctor` package, Ruby). One
Ruby process per Python process converts every AsciiDoc page of a build: starting Ruby and
loading Asciidoctor costs about a second, converting a page a few milliseconds. Documents go
to it length-prefixed on stdin and come back the same way.

Asciidoctor runs in its `secure` safe mode: it reads no file (an `include::` becomes a link,
which the site resolves like any other), reads no URL, and ignores the document's attempts to
raise the safe mode. Its HTML then goes through the Markdown view's sanitizer (nh3 with the same
allowlist, ids made `h-…`, links and images through the page's link resolver), so a
passthrough block (`++++`) is sanitized like raw HTML in Markdown.

Source lines: Asciidoctor's source map gives each block its first line; a small tree
processor gives each paragraph, literal, listing and admonition block a role named with a
secret of the document (a document cannot guess it) holding its lines, which become the
`data-line-start`/`data-line-end` attributes select-to-cite reads.

Ruby's CPU is limited per document like the rest of the rendering (site/budget.py's
`RENDER_SECONDS`): the kernel's RLIMIT_CPU, raised before each document, stops the conversion
and Ruby answers `cpu`, which the render budget reports; a Ruby that hangs without using CPU
meets the budget's wall-clock backstop and is ended.

Without Asciidoctor the page keeps the source view with its outline, and `pincite doctor`
says how to get the rendered view.
"""

from __future__ import annotations

import html as html_lib
import os
import re
import secrets
import shutil
import subprocess
from dataclasses import dataclass

from markupsafe import Markup

from indexer.errors import CpuLimitExceeded
from indexer.site import budget
from indexer.site.links import DocumentLinks
from indexer.site.markdown import RESOURCE_ID, line_attributes, sanitize, wrap_tables

INSTALL_HINT = "install Asciidoctor (Debian/Ubuntu: apt-get install asciidoctor; or gem install asciidoctor)"

RUBY = r"""
require 'asciidoctor'
require 'asciidoctor/extensions'
require 'yaml'

class PinciteLines < Asciidoctor::Extensions::Treeprocessor
  def process(document)
    marker = document.attr('pincite-marker')
    document.find_by { |b| %i[paragraph listing literal admonition].include?(b.context) }.each do |block|
      where = block.source_location
      next unless where && where.lineno && block.content_model != :compound
      block.add_role("#{marker}-#{where.lineno}-#{where.lineno + [block.lines.size, 1].max - 1}")
    end
    # A list item's text starts on its marker's line; where it ends is found from the source.
    document.find_by(context: :list_item).each do |item|
      where = item.source_location
      item.add_role("#{marker}-#{where.lineno}-#{where.lineno}") if where && where.lineno
    end
    nil
  end
end

# The kernel counts this process's CPU: at the soft limit set before each document it sends
# SIGXCPU, which stops the conversion where it stands. Not a StandardError, so no rescue in
# Asciidoctor swallows it.
class PinciteCpuLimit < Exception; end
Signal.trap('XCPU') { raise PinciteCpuLimit }
CPU_HARD = Process.getrlimit(:CPU)[1]

$stdin.binmode
$stdout.binmode
# An Antora component's antora.yml: its `asciidoc.attributes` are every page's (`name: value@` soft-set,
# as Antora sets them; a value that is not text, a list or a map, is left out), and so are its name
# and version (`{page-component-version}`), as Antora's intrinsic attributes.
def component_attributes(text)
  return {} if text.empty?
  found = YAML.safe_load(text)
  return {} unless found.is_a?(Hash)
  attributes = found['asciidoc'].is_a?(Hash) && found['asciidoc']['attributes']
  intrinsic = { 'page-component-name' => found['name'], 'page-component-version' => found['version'] }
  intrinsic = intrinsic.select { |_, value| value.is_a?(String) || value.is_a?(Numeric) }.transform_values(&:to_s)
  return intrinsic unless attributes.is_a?(Hash)
  attributes.each_with_object(intrinsic) do |(name, value), out|
    next unless name.is_a?(String)
    case value
    when String, Numeric then out[name] = value.to_s
    when true then out[name] = ''
    when false, nil then out[name] = nil
    end
  end
rescue StandardError, Psych::Exception
  {}
end

# Every page of a component gives the same antora.yml: read once (merge makes new hashes, so none
# changes the one kept).
COMPONENTS = Hash.new { |known, text| known[text] = component_attributes(text) }

while (header = $stdin.gets)
  marker, size, seconds, component_size = header.split
  source = $stdin.read(size.to_i).force_encoding('UTF-8')
  component = $stdin.read(component_size.to_i).force_encoding('UTF-8')
  begin
    used = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
    Process.setrlimit(:CPU, [(used + seconds.to_f).ceil, CPU_HARD].min, CPU_HARD)
    registry = Asciidoctor::Extensions.create { tree_processor PinciteLines }
    html = Asciidoctor.convert(source, safe: :secure, standalone: false, sourcemap: true,
      extension_registry: registry,
      # kbd:[], btn:[] and menu:[] are what documentation sites write; soft-set, so a page or
      # antora.yml may turn them off.
      attributes: { 'experimental' => '@' }.merge(COMPONENTS[component]).merge(
        'pincite-marker' => marker, 'idprefix' => '', 'idseparator' => '-', 'sectanchors' => nil,
        'icons' => nil, 'showtitle' => nil, 'notitle' => '', 'allow-uri-read' => nil))
    out = "ok\n" + html
  rescue PinciteCpuLimit
    out = "cpu\n"
  rescue StandardError, ScriptError => e
    out = "error\n" + e.message
  ensure
    Process.setrlimit(:CPU, CPU_HARD, CPU_HARD)
  end
  out = out.b
  $stdout.write("#{out.bytesize}\n")
  $stdout.write(out)
  $stdout.flush
end
"""

# What Ruby needs to find a gem-installed Asciidoctor; nothing else of the environment is passed on.
RUBY_ENV = frozenset({"PATH", "HOME", "GEM_HOME", "GEM_PATH", "RUBYLIB", "BUNDLE_GEMFILE"})
_LIST_ITEM = re.compile(r"^\s*(?:[*\-.]+|\d+\.|[a-zA-Z]\.|<\d+>)\s+\S")
_DELIMITER = re.compile(r"^(-{4,}|\.{4,}|={4,}|\*{4,}|_{4,}|\+{4,}|```.*)\s*$")
_HEADING = re.compile(r'<h([2-6]) id="(h-[^"]+)">(.*?)</h\1>', re.DOTALL)
_TAG = re.compile(r"<[^>]+>")


def available() -> bool:
    """Whether Asciidoctor (and the Ruby it runs on) is installed."""
    return shutil.which("asciidoctor") is not None and shutil.which("ruby") is not None


@dataclass
class _Converter:
    """The Ruby process of this Python process (a forked worker starts its own)."""

    proc: subprocess.Popen[bytes] | None = None
    owner: int = 0
    broken: bool = False  # Ruby could not load Asciidoctor: not tried again in this process
    answered: int = 0  # documents the current process converted

    def convert(self, text: str, role: str, cpu_seconds: float, component: str = "") -> str | None:
        """Asciidoctor's HTML for `text`; None when it fails (the page shows the source).

        Ruby may use `cpu_seconds` of its own CPU on it (counted by the kernel, in whole
        seconds); over it, CpuLimitExceeded.
        """
        if self.broken and self.owner == os.getpid():
            return None
        try:
            proc = self._process()
            data, descriptor = text.encode("utf-8"), component.encode("utf-8")
            assert proc.stdin is not None and proc.stdout is not None
            header = f"{role} {len(data)} {cpu_seconds:g} {len(descriptor)}\n".encode("ascii")
            proc.stdin.write(header + data + descriptor)
            proc.stdin.flush()
            header = proc.stdout.readline()
            if not header:  # Ruby stopped: it could not load Asciidoctor, or a document crashed it
                self.broken = proc.wait() != 0 and self.answered == 0
                raise OSError("asciidoctor stopped")
            size = int(header)
            self.answered += 1
            status, _, body = proc.stdout.read(size).decode("utf-8", "replace").partition("\n")
        except (OSError, ValueError):
            self.proc = None  # started again for the next document
            return None
        except BaseException:
            self._discard()  # interrupted mid-answer (the render budget's backstop): the stream is out of step
            raise
        if status == "cpu":
            raise CpuLimitExceeded(f"Asciidoctor used more than {cpu_seconds:g} s of CPU")
        return body if status == "ok" else None

    def _discard(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def _process(self) -> subprocess.Popen[bytes]:
        if self.proc is None or self.owner != os.getpid() or self.proc.poll() is not None:
            ruby = shutil.which("ruby") or "ruby"
            self.proc = subprocess.Popen(
                [ruby, "-e", RUBY],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env={"LANG": "C.UTF-8", **{name: value for name, value in os.environ.items() if name in RUBY_ENV}},
            )
            self.owner, self.answered, self.broken = os.getpid(), 0, False
        return self.proc


_CONVERTER = _Converter()


def asciidoc_view(text: str, links: DocumentLinks | None = None) -> tuple[Markup, list[tuple[int, str, str]]] | None:
    """Rendered HTML of an AsciiDoc document and its (level, id, title) headings; None without Asciidoctor."""
    if not available():
        return None
    role = "pl" + secrets.token_hex(8)
    descriptor = links.targets.descriptor(links.document) if links else None  # its Antora component's
    converted = _CONVERTER.convert(text, role, budget.RENDER_SECONDS, descriptor or "")
    if converted is None:
        return None
    marker = "m" + secrets.token_hex(8) + "~"
    lined = _block_titles(_admonitions(_lines(converted, role, marker, text.split("\n")), marker), marker)
    clean = sanitize(_resource_ids(lined, marker, links, descriptor), marker, links, _ids(lined))
    headings = [
        (int(level), anchor, html_lib.unescape(_TAG.sub("", title)).strip())
        for level, anchor, title in _HEADING.findall(clean)
    ]
    return Markup(wrap_tables(clean)), headings


# Asciidoctor lays an admonition out as a one-row table (its label, then its content).
_ADMONITION = re.compile(
    r'<div class="admonitionblock (\w+)[^"]*"([^>]*)>\s*<table>\s*<tr>\s*<td class="icon">\s*'
    r'<div class="title">([^<]*)</div>\s*</td>\s*<td class="content">(.*?)</td>\s*</tr>\s*</table>\s*</div>',
    re.DOTALL,
)


def _admonitions(html: str, marker: str) -> str:
    """Each admonition as the block of prose with a title that the other views give one (`.admonition`):
    a table would be a data table to the page, kept at its cells' width and scrolled on a phone."""

    def block(found: re.Match[str]) -> str:
        kind, attributes, label, content = found.groups()
        title = f'<p class="{marker}admonition-title">{label}</p>'
        return f'<div class="{marker}admonition {kind}"{attributes}>{title}{content}</div>'

    return _ADMONITION.sub(block, html) if "admonitionblock" in html else html


def _block_titles(html: str, marker: str) -> str:
    """A block's title (`.Title` above a sidebar, example, listing or table) styled as one: the
    sanitizer keeps only the classes the site marks, and unmarked it read as a line of the text."""
    return html.replace('<div class="title">', f'<div class="{marker}block-title">')


_URL_ATTRIBUTE = re.compile(r'(<(?:a|img)\b[^>]*?\s(?:href|src)=")([^"]*)"')
_BARE_XREF = re.compile(r'<a href="([^"]+)">([^<]+)</a>')


def _resource_ids(html: str, marker: str, links: DocumentLinks | None, descriptor: str | None) -> str:
    """Antora resource IDs in links and images (`cli:index.html`) marked for the link resolver: the
    sanitizer would take the module's name for a URL scheme it does not allow and drop the link.
    An `xref:page.adoc[]` without text shows its target's title, as Antora shows it (Asciidoctor,
    which does not know the page, shows `page.html`). `descriptor`: the text of the antora.yml of
    the component holding the document, None outside one."""
    if links is None or descriptor is None:
        return html

    def titled(found: re.Match[str]) -> str:
        url = html_lib.unescape(found.group(1))
        if html_lib.unescape(found.group(2)) != url:
            return found.group(0)
        title = links.targets.title_of(links.document, url)
        return f'<a href="{found.group(1)}">{html_lib.escape(title, quote=False)}</a>' if title else found.group(0)

    html = _BARE_XREF.sub(titled, html)

    def mark(found: re.Match[str]) -> str:
        url = html_lib.unescape(found.group(2))
        if not links.targets.is_resource_id(links.document, url):
            return found.group(0)
        return f'{found.group(1)}{marker}{RESOURCE_ID}{found.group(2)}"'

    return _URL_ATTRIBUTE.sub(mark, html)


def _ids(html: str) -> frozenset[str]:
    """The ids the page gives the document's own places (headings, anchors, notes), as sanitized."""
    return frozenset("h-" + found for found in re.findall(r'<[a-z][a-z0-9]*\b[^>]*?\sid="([^"]+)"', html))


def _lines(html: str, role: str, marker: str, source: list[str]) -> str:
    """Each block with the role `<role>-12-14` gets its source lines (marked, so the sanitizer keeps
    them), on its paragraph or `<pre>` when it has one: the text select-to-cite aligns with the source
    must start where the block's text does, not at the wrapper's line breaks."""
    pattern = re.compile(
        r'class="([^"]*?)\s*\b'
        + role
        + r'-(\d+)-(\d+)\b([^"]*)">(\s*(?:<div class="content">\s*)?)(<(?:p|pre)(?=[\s>]))?'
    )

    def lines(found: re.Match[str]) -> str:
        first, last = int(found.group(2)), int(found.group(3))
        # A delimited block's line is its opening delimiter: its content starts on the next one.
        if 0 < first <= len(source) and _DELIMITER.match(source[first - 1]):
            first, last = first + 1, last + 1
        elif first == last and 0 < first <= len(source) and _LIST_ITEM.match(source[first - 1]):
            last = _item_end(source, first)
        attributes = line_attributes(marker, first, last)
        classes = (found.group(1) + found.group(4)).strip()
        if found.group(6):
            return f'class="{classes}">{found.group(5)}{found.group(6)}{attributes}'
        return f'class="{classes}"{attributes}>{found.group(5)}'

    return pattern.sub(lines, html)


def _item_end(source: list[str], first: int) -> int:
    """The last line of a list item's text: the lines after its marker's, up to a blank line, the
    next item, a list continuation (`+`) or a delimiter."""
    last = first
    while last < len(source):
        line = source[last]
        if not line.strip() or _LIST_ITEM.match(line) or line.strip() == "+" or _DELIMITER.match(line):
            break
        last += 1
    return last
