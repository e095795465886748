"""Every command's `--json` output, as printed by the real CLI on a real repository, against its published schema.

The schemas (indexer/schemas/) are generated from the record shapes of indexer/shapes.py and
close every object, so a field a command prints that its shape does not declare fails here,
and so does a declared field it leaves out. One vocabulary: `--json` on every command, never
silently beside another `--format`; `chars` and `target_commit` wherever a span or a target is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner
from conftest import GIT_ENV, CorpusRepo
from webserver import Route, WebServer

from indexer.cli.main import main
from indexer.errors import UsageError
from indexer.integrations import json_schemas
from indexer.integrations.json_schemas import OUTPUTS, load_schema

POLICY_V1 = "# Retention\n\nLogs are kept for ninety days.\n\nBackups are kept for one year.\n"
POLICY_V2 = POLICY_V1.replace("ninety days", "thirty days")
PAGE = (
    "<html><head><title>Travel</title></head>"
    "<body><article><h1>Travel</h1><p>Book trains early.</p></article></body></html>"
)


class Corpus:
    """A repository whose documents cite a policy that drifted since: every verdict has a case."""

    def __init__(self, root: Path) -> None:
        self.repo = CorpusRepo(root)
        self.pinned = self.repo.commit({"corpus/policy.md": POLICY_V1}, message="policy")
        cited = f"corpus/policy.md@{self.pinned}"
        notes = (
            "# Notes\n\n"
            f'"Logs are kept for ninety days" ({cited}#L3)\n\n'
            f'"Backups are kept for one year" ({cited}#L3)\n\n'
            f'"Logs are shredded at dawn" ({cited}#L5)\n'
        )
        self.head = self.repo.commit(
            {"corpus/policy.md": POLICY_V2, "corpus/travel.html": PAGE, "docs/notes.md": notes}, message="edit"
        )
        self.cited = cited

    def run(self, *args: str, code: int = 0) -> Any:
        result = CliRunner().invoke(main, [*args, "--repo", str(self.repo.root)], catch_exceptions=False)
        assert result.exit_code == code, result.output
        return json.loads(result.stdout)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Corpus]:
    with pytest.MonkeyPatch.context() as patch:
        for name, value in GIT_ENV.items():
            patch.setenv(name, value)
        made = Corpus(tmp_path_factory.mktemp("json") / "repo")
        patch.chdir(made.repo.root)
        yield made


def valid(name: str, data: Any) -> Any:
    jsonschema.validate(data, load_schema(name), cls=jsonschema.Draft202012Validator)
    return data


# -- every command's output against its schema -------------------------------------------------
def test_build(corpus: Corpus) -> None:
    built = valid("build", corpus.run("build", "--json"))
    assert built["site"] is not None and built["commit"] == corpus.head


def test_search_names_a_span_chars(corpus: Corpus) -> None:
    [hit] = valid("search", corpus.run("search", "backups", "--json"))
    start, end = hit["chars"]
    assert "Backups are kept for one year." in POLICY_V2[start:end]
    assert "span" not in hit


def test_cite_takes_json_like_every_command(corpus: Corpus) -> None:
    cited = valid("cite", corpus.run("cite", "corpus/policy.md", "--lines", "5-5", "--json"))
    assert cited["chars"] and cited["text"] == "Backups are kept for one year."
    assert corpus.run("cite", "corpus/policy.md", "--lines", "5-5", "--format", "json") == cited  # the alias


def test_resolve(corpus: Corpus) -> None:
    resolved = valid("resolve", corpus.run("resolve", f"{corpus.cited}#L3", "--context", "1", "--json"))
    assert resolved["text"] == "Logs are kept for ninety days."


def test_verify_prints_an_array_one_object_per_citation(corpus: Corpus) -> None:
    given = [f"{corpus.cited}#L3", f"{corpus.cited}#L5"]
    checked = valid("verify", corpus.run("verify", *given, "--json"))
    assert [c["status"] for c in checked] == ["drifted", "verified"]
    assert checked[0]["recovery"] is not None and checked[0]["recovery"]["target_commit"] == corpus.head


def test_check(corpus: Corpus, tmp_path: Path) -> None:
    report = tmp_path / "check.json"
    printed = valid("check", corpus.run("check", "docs/", "--json", "--report", str(report), code=7))
    assert [r["quote_verdict"] for r in printed["records"]] == ["matched", "wrong_ref", "failed"]
    assert any(r["recovery"] and r["recovery"]["search"] for r in printed["records"])
    valid("check", json.loads(report.read_text(encoding="utf-8")))


def test_pin(corpus: Corpus) -> None:
    assert valid("pin", corpus.run("pin", "docs/", "--json"))["commits"] == [corpus.pinned]


def test_locate_names_its_target_target_commit(corpus: Corpus) -> None:
    found = valid("locate", corpus.run("locate", "Backups are kept for one year", "--json"))
    assert found["target_commit"] == corpus.head and "target" not in found
    nowhere = valid("locate", corpus.run("locate", "Logs are kept for ninety days", "--json", code=1))
    assert nowhere["places"] == [] and nowhere["near"] and "chars" in nowhere["near"][0]


def test_impact(corpus: Corpus) -> None:
    changed = valid("impact", corpus.run("impact", "--base", corpus.pinned, "--json", code=7))
    assert changed["records"]


def test_doctor(corpus: Corpus) -> None:
    result = CliRunner().invoke(main, ["doctor", "--json", "--repo", str(corpus.repo.root)])
    valid("doctor", json.loads(result.stdout))


def test_textconv(corpus: Corpus) -> None:
    result = CliRunner().invoke(main, ["textconv", "--json", "corpus/travel.html"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "Book trains early." in valid("textconv", json.loads(result.stdout))["text"]


def test_init(tmp_path: Path) -> None:
    fresh = CorpusRepo(tmp_path / "fresh")
    fresh.commit({"docs/a.md": "# A\n\nText.\n"})
    result = CliRunner().invoke(main, ["init", "--json", "--repo", str(fresh.root)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert valid("init", json.loads(result.stdout))["roots"] == ["docs"]


@pytest.mark.usefixtures("git_identity")
def test_snapshot_and_its_warc_export(web: WebServer, tmp_path: Path) -> None:
    pytest.importorskip("warcio")
    repo = CorpusRepo(tmp_path / "snap")
    repo.commit({"corpus/readme.md": "# Corpus\n"})
    web.routes["/page.md"] = Route(b"# Page\n\nWords.\n", headers={"Content-Type": "text/markdown; charset=utf-8"})
    runner = CliRunner()
    fetched = runner.invoke(
        main, ["snapshot", "--allow-private", "--json", "--repo", str(repo.root), web.url("/page.md")]
    )
    assert fetched.exit_code == 0, fetched.output
    [result] = valid("snapshot", json.loads(fetched.stdout))
    assert result["status"] == "new"
    warc = tmp_path / "out.warc.gz"
    exported = runner.invoke(main, ["snapshot", "--export-warc", str(warc), "--json", "--repo", str(repo.root)])
    assert exported.exit_code == 0, exported.output
    valid("snapshot-export-warc", json.loads(exported.stdout))


def test_every_output_is_validated_here() -> None:
    """Each published schema is checked against its command's real output by a test of this file."""
    source = Path(__file__).read_text(encoding="utf-8")
    assert {one.name for one in OUTPUTS} <= set(re.findall(r'valid\("([a-z-]+)"', source))


# -- the schemas themselves ------------------------------------------------------------------
def test_a_field_the_shape_does_not_declare_is_refused(corpus: Corpus) -> None:
    printed = corpus.run("pin", "docs/", "--json")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**printed, "span": [0, 1]}, load_schema("pin"))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"commits": printed["commits"]}, load_schema("pin"))  # a declared field left out


def test_the_published_schemas_and_docs_page_are_current() -> None:
    assert json_schemas.stale_files() == [], "run `python -m indexer.integrations.json_schemas`"
    assert json_schemas.main(["--check"]) == 0


def test_every_schema_is_a_valid_json_schema() -> None:
    for one in OUTPUTS:
        jsonschema.Draft202012Validator.check_schema(load_schema(one.name))


def test_the_docs_page_lists_every_record_of_every_schema() -> None:
    page = json_schemas.DOCS_FILE.read_text(encoding="utf-8")
    for one in OUTPUTS:
        assert f"`{one.command}`" in page
        for name, record in json_schemas.records(one)[1].items():
            assert f"## {name}\n" in page
            for field in record.get("properties", {}):
                assert f"| `{field}` |" in page


# -- one vocabulary ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "args",
    [
        ("check", "docs/", "--json", "--format", "github"),
        ("check", "docs/", "--json", "--format", "sarif"),
        ("impact", "--base", "HEAD~1", "--json", "--format", "github"),
        ("impact", "--base", "HEAD~1", "--json", "--format", "markdown"),
        ("cite", "corpus/policy.md", "--lines", "3-3", "--json", "--format", "markdown"),
    ],
)
def test_json_beside_another_format_is_a_usage_error(corpus: Corpus, args: tuple[str, ...]) -> None:
    result = CliRunner().invoke(main, [*args, "--repo", str(corpus.repo.root)])
    assert result.exit_code == UsageError.exit_code, result.output
    assert "two output formats" in result.output and not result.stdout.lstrip().startswith(("{", "["))
