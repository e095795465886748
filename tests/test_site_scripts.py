"""The site's scripts (site_templates/static/*.js, ES modules) outside the browser.

ESLint lints them, node's test runner runs each module's unit tests (tests/js/*.test.js), the
modules a page loads are all in the built site, every Python name a script's comment cites
exists, and the scripts' mirrors of Python rules (encodePath, charShiftBefore) give Python's
answers on generated input. Node.js and npm are needed: without them these tests fail with the
hint to install them, as the workflow tests do; ESLint comes from the npm registry at test time.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from actionlint_wasm import npm_package
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from indexer.citations.drift import verify
from indexer.site.banner_data import _hunk_json
from indexer.text.citation import Citation, encode_path
from indexer.text.model import LineIndex
from indexer.vcs.repo import GitRepo

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "site_templates" / "static"
UNIT_TESTS = ROOT / "tests" / "js"
ESLINT_CONFIG = UNIT_TESTS / "eslint.config.js"
ESLINT_SPEC = "eslint@9.39.5"  # installed from the npm registry for the tests; never part of the site
TOOLS = Path(os.environ.get("PINCITE_TOOLS_DIR", Path.home() / ".cache" / "pincite-tools"))
NODE_HINT = "the site's script tests need Node.js: install it (Debian: apt-get install nodejs npm)"

# Lints the files named on the command line with the repository's configuration; prints the
# findings, the number of files linted, and the recommended rules the configuration leaves out.
_ESLINT_RUNNER = """
const [pkg, tools, config, cwd, ...patterns] = process.argv.slice(1);
const { ESLint } = require(pkg);
const { builtinRules } = require(require.resolve("eslint/use-at-your-own-risk", { paths: [tools] }));
(async () => {
  const eslint = new ESLint({ cwd, overrideConfigFile: config });
  const results = await eslint.lintFiles(patterns);
  const findings = [];
  for (const r of results) {
    for (const m of r.messages) findings.push(`${r.filePath}:${m.line}:${m.column}: ${m.message} [${m.ruleId}]`);
  }
  const configured = (await eslint.calculateConfigForFile(patterns[0])).rules;
  const missing = [...builtinRules].filter(([name, rule]) => rule.meta.docs && rule.meta.docs.recommended &&
    !(name in configured)).map(([name]) => name);
  process.stdout.write(JSON.stringify({ findings, files: results.length, missing }));
})().catch((err) => { console.error(err); process.exit(2); });
"""


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.fail(NODE_HINT)
    return node


def _scripts() -> list[Path]:
    return sorted(STATIC.glob("*.js"))


def test_eslint_finds_nothing_in_the_sites_scripts() -> None:
    node = _node()
    tools = TOOLS / "eslint"
    package = npm_package(ESLINT_SPEC, "package.json", tools)
    linted = [*_scripts(), *sorted(UNIT_TESTS.glob("*.js"))]
    proc = subprocess.run(
        [node, "-e", _ESLINT_RUNNER, str(package), str(tools), str(ESLINT_CONFIG), str(ROOT), *map(str, linted)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["files"] == len(linted)  # no file was skipped as outside the configuration
    assert report["missing"] == [], "recommended rules missing from tests/js/eslint.config.js"
    assert report["findings"] == [], "\n".join(report["findings"])


def test_each_module_has_unit_tests_and_they_pass() -> None:
    node = _node()
    tested = {p.name.removesuffix(".test.js") for p in UNIT_TESTS.glob("*.test.js")}
    # Modules that only drive the page's DOM are covered by the browser tests (test_site_browser.py,
    # test_site_reader.py), which run them on built sites.
    in_browser = {"pincite", "version-page", "search", "banner", "cite-panel", "selection", "source-view", "views"}
    in_browser.add("file-view")
    untested = {p.stem for p in _scripts()} - tested - in_browser
    assert untested == set(), f"modules without tests/js/<module>.test.js: {sorted(untested)}"
    files = sorted(str(p) for p in UNIT_TESTS.glob("*.test.js"))
    proc = subprocess.run(
        [node, "--test", "--test-reporter=tap", *files], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    assert re.search(r"^# fail 0$", proc.stdout, re.M), proc.stdout[-3000:]


# -- the modules a page loads ------------------------------------------------------------------

IMPORT = re.compile(r"""^import\s+(?:[^"';]*?\s+from\s+)?["'](\./[^"']+)["'];""", re.M)
# Quoted or not (a one-token value goes unquoted on the pages written many times: base.html).
ENTRIES = re.compile(r"""<script type="?module"? src="?\{\{ site\.root \}\}static/([^" >]+)"?></script>""")
CLASSIC = re.compile(r"""<script src="?\{\{ site\.root \}\}static/([^" >]+)"? defer></script>""")


def _imported(entry: str) -> set[str]:
    """The module `entry` and every module it imports, transitively (names under static/)."""
    seen: set[str] = set()
    todo = [entry]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(target.removeprefix("./") for target in IMPORT.findall((STATIC / name).read_text("utf-8")))
    return seen


def test_templates_load_entry_modules_whose_imports_are_all_in_the_built_site(corpus_repo: Any, tmp_path: Path) -> None:
    from indexer.api import build

    corpus_repo.commit({"corpus/a.md": "# A\n\ntext\n"})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    entries = set()
    for template in (ROOT / "site_templates").glob("*.html"):
        text = template.read_text("utf-8")
        classic = CLASSIC.findall(text)
        assert set(classic) <= {"file-view.js"}, f"{template.name}: the site's scripts are modules (type=module)"
        assert text.count("<script") == len(ENTRIES.findall(text)) + len(classic), template.name
        entries.update(ENTRIES.findall(text), classic)
    assert entries == {"pincite.js", "version-page.js", "search.js", "file-view.js"}
    loaded = set().union(*map(_imported, entries))
    assert loaded == {p.name for p in _scripts()}  # no script in static/ that no page loads
    for name in loaded:
        assert (site / "static" / name).read_bytes() == (STATIC / name).read_bytes(), name


def test_an_entry_module_names_every_module_it_runs() -> None:
    # The browser finds a module's imports only once it has fetched it: an entry that names its
    # whole graph gets it in one wave, where a chain of imports costs a round trip a level.
    for entry in ("pincite.js", "version-page.js", "search.js"):
        direct = {target.removeprefix("./") for target in IMPORT.findall((STATIC / entry).read_text("utf-8"))}
        assert _imported(entry) - {entry} - direct == set(), entry


def test_docs_name_every_script() -> None:
    text = (ROOT / "docs" / "site.md").read_text("utf-8")
    table = text.split("## The site's scripts", 1)[1].split("\n## ", 1)[0]
    unnamed = [p.name for p in _scripts() if f"`{p.name}`" not in table]
    assert unnamed == [], "docs/site.md, *The site's scripts*, does not name these modules"


# -- comments that cite Python -----------------------------------------------------------------

DOTTED = re.compile(r"\bindexer(?:\.[A-Za-z_]\w*)+")
# A dotted name not written from `indexer.`: `quote._end_offset`, `site_render.history_name`.
SHORT = re.compile(r"(?<![\w./])([a-z_]+)\.(_?[a-z]\w*)\b")
FILE_SUFFIXES = {"js", "json", "html", "md", "py", "txt", "css"}
STEMS = {p.stem for p in (ROOT / "indexer").rglob("*.py")} | {
    p.name for p in (ROOT / "indexer").iterdir() if p.is_dir()
}


def _short_python_name(module: str, attr: str) -> bool:
    """A Python name cited by a short form: its first part is one of the package's modules, or snake_case."""
    return attr not in FILE_SUFFIXES and (module in STEMS or "_" in module.strip("_"))


FILE = re.compile(r"\b(?:indexer|site_templates|tests)/[\w/.-]+\.(?:py|html|js)\b")


COMMENT = re.compile(r"(?<!:)//(.*)$|/\*(.*?)\*/", re.M)


def _comments(text: str) -> list[str]:
    """The scripts' comments: `// ...` to the end of a line (not a URL's `://`), `/* ... */` on one line."""
    return [line or block for line, block in COMMENT.findall(text)]


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            if not hasattr(target, attr):
                return False
            target = getattr(target, attr)
        return True
    return False


def test_every_python_name_a_script_cites_exists() -> None:
    cited: set[str] = set()
    stale = []
    for script in [*_scripts(), *sorted(UNIT_TESTS.glob("*.js"))]:
        for comment in _comments(script.read_text("utf-8")):
            for name in DOTTED.findall(comment):
                cited.add(name)
                if not _resolves(name):
                    stale.append(f"{script.name}: {name}")
            for module, attr in SHORT.findall(comment):
                if _short_python_name(module, attr):
                    stale.append(f"{script.name}: {module}.{attr} (write it in full, from indexer.)")
            for path in FILE.findall(comment):
                cited.add(path)
                if not (ROOT / path).is_file():
                    stale.append(f"{script.name}: {path}")
    assert stale == [], "comments cite Python that does not exist"
    assert len(cited) >= 10  # the scripts do name their Python counterparts


def test_the_citation_check_sees_a_stale_name() -> None:
    assert _resolves("indexer.site.render.history_name")
    assert not _resolves("indexer.site_render.history_name")
    assert not _resolves("indexer.site.render.no_such_function")
    assert _short_python_name("site_render", "history_name") and _short_python_name("quote", "_end_offset")
    assert not _short_python_name("site", "json") and not _short_python_name("range", "toString")
    assert _comments('const a = 1; // see indexer.x\nconst u = "http://x"; // and y\n/** z */') == [
        " see indexer.x",
        " and y",
        "* z ",
    ]


# -- parity with Python, through node -----------------------------------------------------------

# Calls exported functions of the site's modules: one JSON request a line, one JSON answer a line.
_BRIDGE = """
import { createInterface } from "node:readline";
const root = process.argv[1];
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const { module, fn, args } = JSON.parse(line);
  const exported = await import(new URL(module, root).href);
  process.stdout.write(JSON.stringify(await exported[fn](...args)) + "\\n");
}
"""


class Node:
    """A node process that answers calls of the site's module functions."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [_node(), "--input-type=module", "-e", _BRIDGE, STATIC.as_uri() + "/"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def call(self, module: str, fn: str, *args: Any) -> Any:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"module": module, "fn": fn, "args": args}) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def node() -> Iterator[Node]:
    bridge = Node()
    yield bridge
    bridge.close()


# Characters Python 3.11's Unicode tables know (the browser's may be newer: see paths.js), with the
# ones the text form escapes made likely.
PATH_CHARS = st.characters(blacklist_categories=("Cs", "Cn")) | st.sampled_from(
    "%@# ()<>[]\"'`\t\n\x00\x1f\x7f\x85\xa0\xad\u200b\u2028\u2029\u3000\ufeff/é中🎉"
)


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.text(PATH_CHARS, min_size=1, max_size=30))
def test_encode_path_in_javascript_matches_python(node: Node, path: str) -> None:
    assert node.call("paths.js", "encodePath", path) == encode_path(path)


def test_encode_path_escapes_what_python_escapes(node: Node) -> None:
    # Characters the page once left bare (a C1 control, a soft hyphen, a no-break space).
    for path in ("a\x85b.md", "soft\xadhyphen.md", "no\xa0break.md", "zero\u200bwidth.md"):
        assert node.call("paths.js", "encodePath", path) == encode_path(path) != path


LINE = st.text(st.sampled_from("ab é🎉\t"), max_size=6).map(lambda s: s + "\n")


@pytest.fixture(scope="module")
def diff_repo(tmp_path_factory: pytest.TempPathFactory) -> GitRepo:
    root = tmp_path_factory.mktemp("diffs")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return GitRepo(root)


def _blob(repo: GitRepo, text: str) -> str:
    out = subprocess.run(
        ["git", "-C", str(repo.root), "hash-object", "-w", "--stdin"], input=text.encode(), capture_output=True
    )
    return out.stdout.decode().strip()


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(LINE, min_size=1, max_size=12), st.data())
def test_char_shift_before_in_javascript_matches_python(
    node: Node, diff_repo: GitRepo, old_lines: list[str], data: st.DataObject
) -> None:
    new_lines = list(old_lines)
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(new_lines)))
        if new_lines and data.draw(st.booleans()):
            del new_lines[min(at, len(new_lines) - 1)]
        else:
            new_lines.insert(at, data.draw(LINE))
    old, new = "".join(old_lines), "".join(new_lines)
    if data.draw(st.booleans()):  # a text that does not end with a newline ("\\ No newline" in git's diff)
        old, new = old.removesuffix("\n"), new.removesuffix("\n")
    hunks = diff_repo.diff_blobs(_blob(diff_repo, old), _blob(diff_repo, new))
    hunks_json = [_hunk_json(h) for h in hunks]
    old_index, new_index = LineIndex(old), LineIndex(new)
    for first in range(1, old_index.line_count + 1):
        entry = {"target": {"status": "modified", "path": "a.md", "blob": "b", "hunks": hunks_json}}
        decided = node.call("drift.js", "decide", entry, {"kind": "lines", "a": first, "b": first}, [first, first])
        if decided["status"] not in ("unchanged", "moved"):
            continue
        # What drift._verify_resolved moves a verified span by: where its first line starts now.
        new_first = decided["first"]
        if new_first > new_index.line_of(len(new)):
            continue  # past the new text's end: verify says drifted, and the banner draws no span
        expected = new_index.line_start(new_first) - old_index.line_start(first)
        assert node.call("drift.js", "charShiftBefore", first, hunks_json) == expected, (old, new, first)


def test_char_shift_before_agrees_with_verify_on_a_moved_span(node: Node, corpus_repo: Any) -> None:
    old = "# T\n\nkeep 🎉 this\nend\n"
    first = corpus_repo.commit({"corpus/a.md": old})
    second = corpus_repo.commit({"corpus/a.md": "# T\n\nnew é line\n\nkeep 🎉 this\nend\n"})
    repo = GitRepo(corpus_repo.root)
    start = old.index("keep")
    verdict = verify(Citation(first, "corpus/a.md", chars=(start, start + 4)), repo, against=second)
    assert verdict.status == "verified" and verdict.relocated is not None
    old_blob, new_blob = repo.blob_at(first, "corpus/a.md"), repo.blob_at(second, "corpus/a.md")
    assert old_blob is not None and new_blob is not None
    hunks = [_hunk_json(h) for h in repo.diff_blobs(old_blob.sha, new_blob.sha)]
    assert start + node.call("drift.js", "charShiftBefore", 3, hunks) == verdict.relocated.chars[0]
