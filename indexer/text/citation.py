"""Citations: (commit, path, span), their text form, and parsing back.

Text form (docs/citations.md):

    PATH@COMMIT#L12            one line (1-based)
    PATH@COMMIT#L12-L18        lines 12..18 inclusive
    PATH@COMMIT#c120-340       code points [120, 340) of the document text
    PATH@COMMIT#L12C5-L18C9    line 12 column 5 .. line 18 column 9 (columns 1-based,
                               code points, end exclusive)
    PATH@COMMIT#c120-340;x=3f2a9c1e
                               the same, in the text of extractor identity 3f2a9c1e

A citation of an extracted or snapshot document (PDF, HTML) names the extractor identity
whose text its offsets count (docs/design.md#d13) with `;x=TOKEN` after the selector: TOKEN
is the first 8 hex digits of the SHA-256 of the identity string (`identity_token`; 8 to 64
lowercase hex digits are read, as a prefix). A citation without one still parses.

PATH is a repository path as git writes it: no empty, `.` or `..` part, no leading or
trailing `/`, at most 4,096 bytes; a number in a span has at most 15 digits.

COMMIT is the full 40-hex SHA when emitted; parsing accepts 4..40 hex digits and the
caller resolves abbreviations against the repository. In PATH, the characters
`%`, `@`, `#`, `()<>[]`, quotes, whitespace, control and format characters are percent-encoded (UTF-8), so
the form survives Markdown and terminals; other non-ASCII characters stay readable.

Permalink into the static site (served by the site; `blob` is the path's blob at COMMIT):

    {site_url}/v/{blob}.html?commit={COMMIT}&path={quote(path, safe="/")}[&x={TOKEN}]#{selector}

Derived identifiers: a Software Heritage id (`swh:1:cnt:...;anchor=swh:1:rev:...`) and,
when the repository's origin is on GitHub, a `blob/<sha>/<path>?plain=1#L12-L18` URL.
"""

from __future__ import annotations

import contextlib
import hashlib
import posixpath
import re
import shlex
import unicodedata
from dataclasses import dataclass
from urllib.parse import parse_qs, quote, unquote, urlsplit

from indexer.errors import CitationSyntaxError, did_you_mean
from indexer.text.kinds import is_text_path

_ENCODE = set("%@# ()<>[]\"'`")
_PLAIN_PATH = re.compile(r"[A-Za-z0-9._/+=,~-]*")  # none of _ENCODE, no space, no control
_TEXT_FORM = re.compile(
    r"^(?P<path>[^@#\s]+)@(?P<commit>[0-9a-fA-F]{4,40})#(?P<sel>[^\s;]+)(?:;(?P<qualifier>[^\s]*))?$"
)
# The text form with anything after '@': a branch, a tag or HEAD where the commit's SHA belongs.
_NAMED_REV = re.compile(r"^(?P<path>[^@#\s]+)@(?P<rev>[^@#\s]+)#(?P<sel>[^\s;]+)(?:;[^\s]*)?$")
IDENTITY_KEY = "x"  # `;x=TOKEN` in the text form, `&x=TOKEN` in a permalink
TOKEN_LENGTH = 8  # hex digits emitted; 8..64 are read
_TOKEN = re.compile(r"^[0-9a-f]{8,64}\Z")
# ASCII digits only, to the very end: "L١٢" or "L1\n" must not read as L12 or L1.
_LINES = re.compile(r"^L([0-9]+)(?:-L([0-9]+))?\Z")
_CHARS = re.compile(r"^c([0-9]+)-([0-9]+)\Z")
_LINECOL = re.compile(r"^L([0-9]+)C([0-9]+)-L([0-9]+)C([0-9]+)\Z")
# Spans as people write them elsewhere (`L3-5`, `l3`, `3-5`, `L3..L5`, `C120-340`): read for a
# "did you mean" only, never as a citation (one spelling per span).
_NEAR_LINES = re.compile(r"^[Ll]?([0-9]+)(?:(?:-|–|\.\.|:)[Ll]?([0-9]+))?\Z")
_NEAR_CHARS = re.compile(r"^[Cc]([0-9]+)(?:-|–|\.\.|:)[Cc]?([0-9]+)\Z")
# Bounds that keep every citation cheap to read: a path git could check out (PATH_MAX), and
# numbers far past any document's size (Python refuses to read ints of over 4,300 digits).
MAX_PATH_BYTES = 4096
MAX_NUMBER_DIGITS = 15


@dataclass(frozen=True)
class Citation:
    """A span pinned to a commit. Exactly one of `lines`, `chars`, `linecol` is set."""

    commit: str
    path: str
    lines: tuple[int, int] | None = None
    chars: tuple[int, int] | None = None
    linecol: tuple[int, int, int, int] | None = None
    quote: str | None = None
    prefix: str | None = None
    suffix: str | None = None
    blob: str | None = None
    # The extractor identity whose text the offsets count, as its token (`identity_token`).
    identity_token: str | None = None

    def __post_init__(self) -> None:
        check_path(self.path)
        if self.identity_token is not None and not _TOKEN.match(self.identity_token):
            raise CitationSyntaxError(
                f"extractor identity token {self.identity_token!r} is not 8 to 64 lowercase hex digits"
            )
        chosen = [s for s in (self.lines, self.chars, self.linecol) if s is not None]
        if len(chosen) != 1:
            raise CitationSyntaxError("a citation needs exactly one of lines, chars or line:column")
        if self.lines is not None and not (1 <= self.lines[0] <= self.lines[1]):
            raise CitationSyntaxError(f"line range L{self.lines[0]}-L{self.lines[1]} is empty or reversed")
        if self.chars is not None and not (0 <= self.chars[0] <= self.chars[1]):
            raise CitationSyntaxError(f"character range c{self.chars[0]}-{self.chars[1]} is reversed")
        if self.linecol is not None:
            l1, c1, l2, c2 = self.linecol
            if min(l1, c1, l2, c2) < 1 or (l2, c2) < (l1, c1):
                raise CitationSyntaxError(f"line:column range L{l1}C{c1}-L{l2}C{c2} is reversed or zero-based")

    @property
    def selector(self) -> str:
        if self.lines is not None:
            a, b = self.lines
            return f"L{a}" if a == b else f"L{a}-L{b}"
        if self.chars is not None:
            return f"c{self.chars[0]}-{self.chars[1]}"
        assert self.linecol is not None
        l1, c1, l2, c2 = self.linecol
        return f"L{l1}C{c1}-L{l2}C{c2}"

    def text_form(self) -> str:
        form = f"{encode_path(self.path)}@{self.commit}#{self.selector}"
        return form if self.identity_token is None else f"{form};{IDENTITY_KEY}={self.identity_token}"

    @property
    def unit(self) -> str:
        """Which unit system the span is written in: "lines", "chars" or "linecol"."""
        if self.lines is not None:
            return "lines"
        return "chars" if self.chars is not None else "linecol"

    def to_json(self) -> dict[str, object]:
        return {
            "citation": self.text_form(),
            "commit": self.commit,
            "path": self.path,
            "selector": self.selector,
            "lines": list(self.lines) if self.lines else None,
            "chars": list(self.chars) if self.chars else None,
            "linecol": list(self.linecol) if self.linecol else None,
            "blob": self.blob,
            "identity_token": self.identity_token,
            "quote": self.quote,
            "prefix": self.prefix,
            "suffix": self.suffix,
        }


def check_path(path: str) -> None:
    """Refuse a path that is not a repository path as git writes it (one spelling per document)."""
    size = len(path.encode("utf-8", "surrogatepass"))
    if size > MAX_PATH_BYTES:
        raise CitationSyntaxError(
            f"the path is {size:,} bytes, longer than the {MAX_PATH_BYTES:,} a repository path may be"
        )
    parts = path.split("/")
    what = (
        "a NUL character"
        if "\0" in path
        else "'..'"
        if ".." in parts
        else "'.'"
        if "." in parts
        else "an empty part (a leading, trailing or doubled '/')"
        if "" in parts
        else None
    )
    if what is not None:
        canonical = posixpath.normpath(path.replace("\0", "")).lstrip("/")
        suggestion = "" if canonical in (".", "") or canonical.startswith("..") else f"; {did_you_mean(canonical)}"
        if path.startswith("/") and what.startswith("an empty"):
            raise CitationSyntaxError(f"path {_shortened(path)!r} is absolute: a repository path has no leading '/'")
        raise CitationSyntaxError(
            f"path {_shortened(path)!r} is not a repository path as git writes it: {what} is not allowed{suggestion}"
        )


def _shortened(text: str, most: int = 120) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


def identity_token(identity: str) -> str:
    """The short token a citation carries for an extractor identity: 8 hex digits of its SHA-256."""
    return hashlib.sha256(identity.encode("utf-8")).hexdigest()[:TOKEN_LENGTH]


def token_for(source_class: str, identity: str) -> str | None:
    """The token a citation of a version of this class names: PDF, HTML and snapshot text only.

    A text document's offsets count its committed bytes' own text, so its citations name none.
    """
    return identity_token(identity) if source_class != "text" else None


def names_identity(token: str, identity: str) -> bool:
    """Whether a citation's token (8 to 64 hex digits) names this extractor identity."""
    return hashlib.sha256(identity.encode("utf-8")).hexdigest().startswith(token)


def parse_identity_token(value: str, source: str) -> str:
    """A token as read from a citation (lower-cased), or an error naming the citation."""
    token = value.lower()
    if not _TOKEN.match(token):
        raise CitationSyntaxError(
            f"{source!r}: extractor identity {value!r} is not 8 to 64 hex digits (expected e.g. x=3f2a9c1e)"
        )
    return token


def encode_path(path: str) -> str:
    if _PLAIN_PATH.fullmatch(path):  # most paths: nothing to escape, and no per-character look-up
        return path
    return "".join(_percent(ch) if _needs_escape(ch) else ch for ch in path)


def _needs_escape(ch: str) -> bool:
    # Anything a terminal, Markdown or a `\s` regex would split or hide is escaped.
    return ch in _ENCODE or ch.isspace() or unicodedata.category(ch) in ("Cc", "Cf", "Zs", "Zl", "Zp")


def _percent(ch: str) -> str:
    return "".join(f"%{b:02X}" for b in ch.encode("utf-8"))


def decode_path(encoded: str) -> str:
    raw = bytearray()
    i = 0
    while i < len(encoded):
        ch = encoded[i]
        if ch == "%":
            hexpart = encoded[i + 1 : i + 3]
            if not re.fullmatch(r"[0-9A-Fa-f]{2}", hexpart):
                raise CitationSyntaxError(f"bad percent-escape {encoded[i : i + 3]!r} in path {encoded!r}")
            raw.append(int(hexpart, 16))
            i += 3
        else:
            raw.extend(ch.encode("utf-8"))
            i += 1
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CitationSyntaxError(f"path {encoded!r} decodes to invalid UTF-8") from exc


def parse_selector(selector: str, source: str) -> dict[str, tuple[int, ...]]:
    if len(selector) > 4 * (MAX_NUMBER_DIGITS + 2) or any(
        len(digits) > MAX_NUMBER_DIGITS for digits in re.findall(r"[0-9]+", selector)
    ):
        raise CitationSyntaxError(
            f"{_shortened(source)!r}: span {_shortened(selector, 40)!r} has a number of more than "
            f"{MAX_NUMBER_DIGITS} digits, past any document's end",
        )
    if m := _LINES.match(selector):
        first = int(m.group(1))
        last = int(m.group(2)) if m.group(2) else first
        return {"lines": (first, last)}
    if m := _CHARS.match(selector):
        return {"chars": (int(m.group(1)), int(m.group(2)))}
    if m := _LINECOL.match(selector):
        return {"linecol": tuple(int(g) for g in m.groups())}
    meant = near_selector(selector)
    suggestion = ""
    if meant is not None:
        fixed = source.replace(f"#{selector}", f"#{meant}", 1) if f"#{selector}" in source else meant
        suggestion = f"; {did_you_mean(fixed)}"
    raise CitationSyntaxError(
        f"{source!r}: span {selector!r} is not one of L12, L12-L18, c120-340, L12C5-L18C9{suggestion}",
    )


def near_selector(selector: str) -> str | None:
    """The span a near miss means (`L3-5` → `L3-L5`, `c1-C9` → `c1-9`), as the grammar spells it; else None."""
    if m := _NEAR_LINES.match(selector):
        first, last = m.groups()
        return f"L{first}" if last is None else f"L{first}-L{last}"
    if m := _NEAR_CHARS.match(selector):
        return f"c{m.group(1)}-{m.group(2)}"
    return None


def parse_text_form(text: str) -> Citation:
    """Parse `PATH@COMMIT#SELECTOR`; the commit may be abbreviated (resolve it later)."""
    candidate = text.strip()
    m = _TEXT_FORM.match(candidate)
    if not m:
        named = _NAMED_REV.match(candidate)
        if named and not re.fullmatch(r"[0-9a-fA-F]+", named.group("rev")):  # a SHA of a wrong length is below
            raise _named_revision(text, named.group("path"), named.group("rev"), named.group("sel"))
        if "@" not in candidate:
            raise CitationSyntaxError(f"{text!r}: missing '@COMMIT' (expected PATH@COMMIT#L12-L18)")
        if "#" not in candidate:
            raise CitationSyntaxError(f"{text!r}: missing '#SPAN' (expected PATH@COMMIT#L12-L18)")
        raise CitationSyntaxError(f"{text!r}: not a citation (expected PATH@COMMIT#L12-L18 with a 4-40 hex commit)")
    path = decode_path(m.group("path"))
    selector = parse_selector(m.group("sel"), text)
    qualifier = m.group("qualifier")
    token = None
    if qualifier is not None:
        key, _, value = qualifier.partition("=")
        if key != IDENTITY_KEY:
            raise CitationSyntaxError(
                f"{text!r}: after the span only ';x=TOKEN' (the extractor identity) may follow, not {qualifier!r}"
            )
        token = parse_identity_token(value, text)
    return _build(text, commit=m.group("commit").lower(), path=path, identity_token=token, **selector)


def _named_revision(text: str, path: str, rev: str, selector: str) -> CitationSyntaxError:
    """A citation naming HEAD, a branch or a tag: it would move with them; `pincite cite` pins the commit."""
    span = _readable_span(selector)
    with contextlib.suppress(CitationSyntaxError):
        path = decode_path(path)
    command = ["pincite", "cite", shlex.quote(path)]
    if rev != "HEAD":
        command += ["--rev", shlex.quote(rev)]
    if "lines" in span:
        first, last = span["lines"]
        command += ["--lines", f"{first}" if first == last else f"{first}-{last}"]
    elif "chars" in span:
        command += ["--chars", f"{span['chars'][0]}-{span['chars'][1]}"]
    else:  # a span by line and column, or none that reads: cite takes lines or characters
        command += ["--lines", "A-B"]
    return CitationSyntaxError(
        f"{_shortened(text)!r}: {_shortened(rev, 40)!r} is not a commit: a citation names its commit by SHA "
        f"(4-40 hex digits), so the text it cites never moves; {did_you_mean(' '.join(command))}",
        hint=f"`pincite cite` pins the commit {rev} names now and prints the citation",
    )


def _readable_span(selector: str) -> dict[str, tuple[int, ...]]:
    """The span `selector`, or the near miss it is, names; empty when neither reads."""
    for spelling in (selector, near_selector(selector)):
        if spelling is not None:
            try:
                return parse_selector(spelling, spelling)
            except CitationSyntaxError:
                continue
    return {}


def _build(source: str, **fields: object) -> Citation:
    """A Citation, with a range error naming the string it came from."""
    try:
        return Citation(**fields)  # type: ignore[arg-type]
    except CitationSyntaxError as exc:
        raise CitationSyntaxError(f"{source!r}: {exc.message}") from exc


# -- permalinks into the static site ------------------------------------------------
_HEX40 = re.compile(r"^[0-9a-f]{40}$")
_PERMALINK_PATH = re.compile(r"^(?P<base>.*)/v/(?P<blob>[0-9a-f]{40})\.html$")


def permalink(citation: Citation, site_url: str, blob: str) -> str:
    """The site URL that shows exactly this citation (see the module docstring)."""
    base = site_url.rstrip("/")
    path = quote(citation.path, safe="/")
    token = "" if citation.identity_token is None else f"&{IDENTITY_KEY}={citation.identity_token}"
    return f"{base}/v/{blob}.html?commit={citation.commit}&path={path}{token}#{citation.selector}"


def parse_permalink(url: str) -> tuple[Citation, str]:
    """(citation with its blob, site base URL) of a pincite permalink."""
    try:
        parts = urlsplit(url.strip())
    except ValueError as exc:  # an unclosed IPv6 bracket, say
        raise CitationSyntaxError(f"{_shortened(url)!r}: not a URL ({exc})") from exc
    found = _PERMALINK_PATH.match(parts.path)
    if parts.scheme not in ("http", "https", "file") or not found:
        raise CitationSyntaxError(f"{url!r}: not a pincite permalink (expected .../v/BLOB.html?commit=...&path=...)")
    query = parse_qs(parts.query, keep_blank_values=True)
    commits, paths = query.get("commit", []), query.get("path", [])
    if len(commits) != 1 or not _HEX40.match(commits[0]):
        raise CitationSyntaxError(f"{url!r}: the permalink needs commit=<40 hex digits>")
    if len(paths) != 1 or not paths[0]:
        raise CitationSyntaxError(f"{url!r}: the permalink needs path=<document path>")
    if not parts.fragment:
        raise CitationSyntaxError(f"{url!r}: the permalink needs a #span such as #L12-L18")
    tokens = query.get(IDENTITY_KEY, [])
    if len(tokens) > 1:
        raise CitationSyntaxError(f"{url!r}: the permalink names more than one extractor identity ({IDENTITY_KEY}=)")
    token = parse_identity_token(tokens[0], url) if tokens else None
    selector = parse_selector(unquote(parts.fragment), url)
    base = f"{parts.scheme}://{parts.netloc}{found.group('base')}"
    citation = _build(url, commit=commits[0], path=paths[0], blob=found.group("blob"), identity_token=token, **selector)
    return citation, base


# -- GitHub and Software Heritage ---------------------------------------------------
_GITHUB_ORIGIN = re.compile(
    r"^(?:https?://(?:[^@/]+@)?github\.com/|git@github\.com:|ssh://git@github\.com/)"
    r"(?P<owner>[\w.-]+)/(?P<name>[\w.-]+?)(?:\.git)?/?$"
)
_GITHUB_BLOB = re.compile(
    r"^https://github\.com/(?P<owner>[\w.-]+)/(?P<name>[\w.-]+)/blob/(?P<commit>[0-9a-fA-F]{4,40})/"
    r"(?P<path>[^?#\s]+)(?:\?[^#\s]*)?#(?P<sel>L\d+(?:-L\d+)?)$"
)


def github_repo(origin_url: str | None) -> tuple[str, str] | None:
    """(owner, name) when the origin URL points at GitHub."""
    if not origin_url:
        return None
    found = _GITHUB_ORIGIN.match(origin_url.strip())
    return (found.group("owner"), found.group("name")) if found else None


def github_url(citation: Citation, origin_url: str | None, lines: tuple[int, int]) -> str | None:
    """A GitHub blob permalink to the citation's lines, when the origin is on GitHub."""
    owner_name = github_repo(origin_url)
    if owner_name is None:
        return None
    owner, name = owner_name
    first, last = lines
    anchor = f"L{first}" if first == last else f"L{first}-L{last}"
    return f"https://github.com/{owner}/{name}/blob/{citation.commit}/{quote(citation.path, safe='/')}?plain=1#{anchor}"


def parse_github_url(url: str) -> tuple[Citation, tuple[str, str]]:
    """(citation, (owner, name)) of a GitHub blob URL with a line anchor."""
    found = _GITHUB_BLOB.match(url.strip())
    if not found:
        raise CitationSyntaxError(f"{url!r}: not a GitHub blob URL with a #L12-L18 anchor")
    path = unquote(found.group("path"))
    if not is_text_path(path):
        # GitHub numbers the raw file's lines; pincite's lines of a PDF or HTML count its extracted text.
        raise CitationSyntaxError(
            f"{url!r}: GitHub's line anchors count lines of the raw file, but pincite cites the extracted "
            f"text of {path}; cite it with the text form or a pincite permalink"
        )
    selector = parse_selector(found.group("sel"), url)
    citation = _build(url, commit=found.group("commit").lower(), path=path, **selector)
    return citation, (found.group("owner"), found.group("name"))


def swhid(citation: Citation, blob: str, lines: tuple[int, int] | None, origin_url: str | None) -> str:
    """The Software Heritage identifier of the cited lines, with origin, anchor and path qualifiers.

    `lines` None leaves the lines qualifier out: it counts lines of the blob itself, which
    are not the lines of an extracted text.
    """
    parts = [f"swh:1:cnt:{blob}"]
    origin = _public_origin(origin_url)
    if origin:
        parts.append(f"origin={origin}")
    parts.append(f"anchor=swh:1:rev:{citation.commit}")
    parts.append("path=/" + quote(citation.path, safe="/"))
    if lines is not None:
        first, last = lines
        parts.append(f"lines={first}" if first == last else f"lines={first}-{last}")
    return ";".join(parts)


def _public_origin(origin_url: str | None) -> str | None:
    owner_name = github_repo(origin_url)
    if owner_name:
        return f"https://github.com/{owner_name[0]}/{owner_name[1]}"
    if origin_url and origin_url.startswith(("https://", "http://")) and "@" not in origin_url:
        return quote(origin_url, safe=":/.-_~")
    return None


def parse_citation(text: str) -> Citation:
    """Any citation form pincite reads: text form, pincite permalink, or GitHub blob URL."""
    candidate = text.strip()
    if candidate.startswith("https://github.com/"):  # first: a GitHub path may hold a "v" folder
        return parse_github_url(candidate)[0]
    if "/v/" in candidate and "?" in candidate and candidate.startswith(("http://", "https://", "file://")):
        return parse_permalink(candidate)[0]
    return parse_text_form(candidate)
