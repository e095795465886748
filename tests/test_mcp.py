"""`pincite mcp` over stdio, driven by the official SDK's own client, against the sample corpus.

One server serves the module's tests (its start-up costs seconds); another serves the
1,000-call memory test, and a third the --allow-build one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from click.testing import CliRunner
from mcp_types import CallToolResult

from indexer.cli.main import main
from indexer.index.search import MAX_LIMIT
from indexer.integrations.agent_tools import MAX_CITATIONS, MAX_DRAFT_BYTES, MAX_QUERY_CHARS
from indexer.integrations.mcp_server import document_uri
from tests.conftest import SampleClone
from tests.mcp_client import McpSession, rss_kib

READERS = {"search", "cite", "resolve", "verify", "check_answer", "locate"}


@pytest.fixture(scope="module")
def server(sample_clone: SampleClone) -> Iterator[McpSession]:
    with McpSession(sample_clone.root, sample_clone.index) as session:
        yield session


def ok(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    # Clients without structured content read the same JSON as text.
    assert json.loads(result.content[0].text) == result.structured_content  # type: ignore[union-attr]
    return result.structured_content


def error_text(result: CallToolResult) -> str:
    assert result.is_error
    return result.content[0].text  # type: ignore[union-attr]


def cli_error(*args: str) -> str:
    """The message the CLI prints for the same mistake (after `pincite: error: `)."""
    outcome = CliRunner().invoke(main, list(args))
    assert outcome.exit_code != 0, outcome.output
    return outcome.stderr.removeprefix("pincite: error: ").rstrip("\n")


def test_the_tools_are_listed_with_input_and_output_schemas(server: McpSession) -> None:
    tools = {tool.name: tool for tool in server.list_tools().tools}
    assert set(tools) == READERS  # no build tool without --allow-build
    for tool in tools.values():
        assert tool.input_schema["type"] == "object" and tool.input_schema["properties"]
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        assert tool.description
        assert tool.annotations is not None and tool.annotations.read_only_hint is True
        assert tool.annotations.open_world_hint is False
    assert tools["cite"].input_schema["required"] == ["path"]
    assert "description" in tools["search"].input_schema["properties"]["limit"]


def test_the_schemas_carry_the_bounds_the_tools_enforce(server: McpSession) -> None:
    tools = {tool.name: tool.input_schema["properties"] for tool in server.list_tools().tools}
    assert (tools["search"]["limit"]["minimum"], tools["search"]["limit"]["maximum"]) == (1, MAX_LIMIT)
    assert tools["search"]["query"]["maxLength"] == MAX_QUERY_CHARS
    assert tools["verify"]["citations"]["maxItems"] == MAX_CITATIONS
    refused = error_text(server.call("search", {"query": "the", "limit": 100_000}))
    assert "limit" in refused and "1000" in refused


def test_search_hits_carry_the_exact_text_their_citation_pins(server: McpSession) -> None:
    found = ok(server.call("search", {"query": "application logs", "limit": 3}))
    assert found["hits"]
    for hit in found["hits"]:
        resolved = ok(server.call("resolve", {"citation": hit["citation"]}))
        assert resolved["text"] == hit["text"]
        assert hit["commit"] == found["commit"]
    narrowed = ok(server.call("search", {"query": "logs", "path_prefix": "corpus/operations/"}))
    assert all(hit["path"].startswith("corpus/operations/") for hit in narrowed["hits"])


def test_cite_by_quote_returns_the_citation_and_the_exact_text_apart(
    server: McpSession, sample_clone: SampleClone
) -> None:
    cited = ok(
        server.call(
            "cite", {"path": "corpus/policies/data-retention.md", "quote": "Application logs are personal data"}
        )
    )
    assert cited["status"] == "cited" and cited["count"] == 1
    one = cited["cited"]
    assert one["text"] == "Application logs are personal data"
    assert one["citation"].startswith(f"corpus/policies/data-retention.md@{sample_clone.head}#c")
    assert one["text"] in one["markdown"] and one["citation"] in one["markdown"]
    by_lines = ok(server.call("cite", {"path": "corpus/policies/data-retention.md", "lines": "38"}))
    assert one["text"] in by_lines["cited"]["text"]


def test_an_ambiguous_quote_returns_its_candidates(server: McpSession) -> None:
    cited = ok(server.call("cite", {"path": "corpus/policies/data-retention.md", "quote": "logs"}))
    assert cited["status"] == "ambiguous" and cited["cited"] is None
    assert cited["count"] > 1 and len(cited["candidates"]) == min(cited["count"], 20)
    assert {c["text"].lower() for c in cited["candidates"]} == {"logs"}
    assert len({c["citation"] for c in cited["candidates"]}) == len(cited["candidates"])
    assert "quote more words" in cited["message"]


def test_resolve_returns_context_around_the_span(server: McpSession, sample_clone: SampleClone) -> None:
    passage = sample_clone.passages("untouched")[0]
    resolved = ok(server.call("resolve", {"citation": sample_clone.first_citation(passage), "context": 2}))
    assert passage["quote"] in resolved["text"]
    assert resolved["before"].count("\n") == 2 and resolved["commit"] == sample_clone.first


def test_a_fabricated_quote_fails_and_a_misattributed_one_is_wrong_ref_with_the_right_place(
    server: McpSession,
) -> None:
    real = ok(
        server.call(
            "cite", {"path": "corpus/policies/data-retention.md", "quote": "Application logs are personal data"}
        )
    )
    elsewhere = ok(server.call("cite", {"path": "corpus/operations/on-call.md", "lines": "1-2"}))
    draft = (
        f'The policy says "Application logs are personal data" ({real["cited"]["citation"]}).\n\n'
        f'It also says "application logs may be copied to laptops for a week" ({real["cited"]["citation"]}).\n\n'
        f'On-call pages say "Application logs are personal data" ({elsewhere["cited"]["citation"]}).\n'
    )
    checked = ok(server.call("check_answer", {"draft": draft}))
    matched, fabricated, misattributed = checked["citations"]
    assert (matched["verdict"], matched["quote_verdict"], matched["severity"]) == ("verified", "matched", "ok")
    assert fabricated["quote_verdict"] == "failed" and fabricated["corrected"] is None
    assert "stands nowhere in the corpus" in fabricated["quote_reason"]
    assert misattributed["quote_verdict"] == "wrong_ref"
    corrected = misattributed["corrected"]
    assert corrected["citation"].startswith("corpus/policies/data-retention.md@")
    assert "Application logs are personal data" in corrected["text"]
    assert checked["ok"] is False
    assert checked["summary"]["quote_failed"] == 1 and checked["summary"]["quote_wrong_ref"] == 1


def test_a_clean_draft_is_ok(server: McpSession) -> None:
    real = ok(
        server.call(
            "cite", {"path": "corpus/policies/data-retention.md", "quote": "Application logs are personal data"}
        )
    )
    checked = ok(server.call("check_answer", {"draft": real["cited"]["markdown"]}))
    assert checked["ok"] is True and [c["quote_verdict"] for c in checked["citations"]] == ["matched"]
    empty = ok(server.call("check_answer", {"draft": "No citations here."}))
    assert empty["ok"] is True and empty["citations"] == [] and empty["notes"]


def test_a_drifted_citation_names_the_commit_that_changed_it(server: McpSession, sample_clone: SampleClone) -> None:
    for passage in sample_clone.passages("edited") + sample_clone.passages("deleted"):
        verified = ok(server.call("verify", {"citations": [sample_clone.first_citation(passage)]}))
        result = verified["results"][0]
        assert result["status"] == "drifted", passage["id"]
        changed = result["changed_by"]
        assert changed is not None, passage["id"]
        assert changed["subject"] == passage["changed_by"]
        assert changed["commit"] == sample_clone.by_subject[passage["changed_by"]]
        assert result["hunks"] and result["cited_text"]
    untouched = sample_clone.first_citation(sample_clone.passages("untouched")[0])
    result = ok(server.call("verify", {"citations": [untouched]}))["results"][0]
    assert result["status"] == "verified" and result["changed_by"] is None
    assert result["relocated"]["text"] == result["cited_text"]


def test_a_drifted_citation_in_a_draft_names_the_commit_too(server: McpSession, sample_clone: SampleClone) -> None:
    passage = sample_clone.passages("edited")[0]
    draft = f"> {passage['quote']}\n\n— {sample_clone.first_citation(passage)}\n"
    item = ok(server.call("check_answer", {"draft": draft}))["citations"][0]
    assert item["verdict"] == "drifted" and item["quote_verdict"] == "matched"
    assert item["changed_by"]["subject"] == passage["changed_by"]


def test_locate_says_where_a_moved_quote_stands_and_which_commit_changed_an_edited_one(
    server: McpSession, sample_clone: SampleClone
) -> None:
    moved = sample_clone.passages("moved_to_file")[0]
    found = ok(server.call("locate", {"quote": moved["quote"]}))
    assert found["found"] and found["places"][0]["path"] == moved["path_at_last"]
    assert moved["quote"].split()[0] in found["places"][0]["text"]
    edited = sample_clone.passages("edited")[0]
    gone = ok(server.call("locate", {"quote": edited["quote"], "path": edited["path"], "since": sample_clone.first}))
    assert not gone["found"] and gone["last_seen"]["subject"] == edited["changed_by"]


RETENTION = "corpus/policies/data-retention.md"


@pytest.mark.parametrize(
    ("tool", "arguments", "cli"),
    [
        ("cite", {"path": "corpus/nope.md", "quote": "x"}, ["cite", "corpus/nope.md", "--quote", "x"]),
        ("cite", {"path": RETENTION, "lines": "9-x"}, ["cite", RETENTION, "--lines", "9-x"]),
        ("cite", {"path": RETENTION, "lines": "5000"}, ["cite", RETENTION, "--lines", "5000"]),
        (
            "cite",
            {"path": RETENTION, "quote": "no such words here"},
            ["cite", RETENTION, "--quote", "no such words here"],
        ),
        ("cite", {"path": RETENTION}, ["cite", RETENTION]),
        ("resolve", {"citation": "corpus/a.md@zz#L1"}, ["resolve", "corpus/a.md@zz#L1"]),
        ("verify", {"citations": ["not a citation"]}, ["verify", "not a citation"]),
        ("search", {"query": "logs", "limit": 10**9}, ["search", "logs", "--limit", str(10**9)]),
        ("search", {"query": "logs", "limit": 0}, ["search", "logs", "--limit", "0"]),
        ("search", {"query": "!!!"}, ["search", "!!!"]),
    ],
)
def test_bad_arguments_are_tool_errors_with_the_cli_message(
    server: McpSession, sample_clone: SampleClone, tool: str, arguments: dict[str, Any], cli: list[str]
) -> None:
    text = error_text(server.call(tool, arguments))
    index = ["--index", str(sample_clone.index)] if tool == "search" else []
    assert cli_error(*cli, "--repo", str(sample_clone.root), *index) in text
    assert ok(server.call("search", {"query": "retention", "limit": 1}))["hits"]  # and the server goes on


def test_a_huge_draft_is_refused_and_the_server_keeps_serving(server: McpSession) -> None:
    draft = "x" * (10 * 1024 * 1024)
    text = error_text(server.call("check_answer", {"draft": draft}))
    assert f"check_answer reads at most {MAX_DRAFT_BYTES:,}" in text
    assert ok(server.call("search", {"query": "retention", "limit": 1}))["hits"]


def test_documents_are_resources_readable_whole_or_by_span(server: McpSession, sample_clone: SampleClone) -> None:
    listed = server.list_resources().resources
    paths = {resource.name for resource in listed}
    assert "corpus/policies/política de viagens.md" in paths and "corpus/reports/data-retention-schedule.pdf" in paths
    uri = document_uri(sample_clone.head, "corpus/policies/política de viagens.md")
    assert uri in {str(resource.uri) for resource in listed}
    whole = server.read_resource(uri).contents[0].text  # type: ignore[union-attr]
    resolved = ok(
        server.call(
            "resolve", {"citation": f"corpus/policies/pol%C3%ADtica%20de%20viagens.md@{sample_clone.head}#L1-L3"}
        )
    )
    assert whole.startswith(resolved["text"])
    span = server.read_resource(uri + "?lines=1-3").contents[0].text  # type: ignore[union-attr]
    assert span == resolved["text"]
    chars = server.read_resource(uri + "?chars=0-5").contents[0].text  # type: ignore[union-attr]
    assert chars == whole[:5]
    templates = [t.uri_template for t in server.list_resource_templates().resource_templates]
    assert templates == ["pincite://{commit}/{+path}{?lines,chars}"]


def test_an_unknown_document_is_a_resource_error(server: McpSession, sample_clone: SampleClone) -> None:
    from mcp.shared.exceptions import MCPError

    with pytest.raises(MCPError, match="does not exist"):
        server.read_resource(document_uri(sample_clone.head, "corpus/nope.md"))
    assert server.list_resources().resources


def test_build_is_a_tool_only_with_allow_build(sample_clone: SampleClone, tmp_path: Any) -> None:
    index = tmp_path / "own-index.sqlite"
    with McpSession(sample_clone.root, index, "--allow-build") as session:
        tools = {tool.name: tool for tool in session.list_tools().tools}
        assert set(tools) == READERS | {"build"}
        assert tools["build"].annotations is not None and tools["build"].annotations.read_only_hint is False
        assert "no index here" in error_text(session.call("search", {"query": "retention"}))
        built = ok(session.call("build", {}))
        assert built["commit"] == sample_clone.head and built["documents"] > 10
        assert ok(session.call("search", {"query": "retention", "limit": 1}))["hits"]  # the new index is read


def test_a_thousand_calls_keep_the_server_memory_flat(sample_clone: SampleClone) -> None:
    with McpSession(sample_clone.root, sample_clone.index) as session:
        pid = session.server_pid()
        if pid is None:
            pytest.skip("no /proc to find the server process in")
        real = ok(
            session.call(
                "cite", {"path": "corpus/policies/data-retention.md", "quote": "Application logs are personal data"}
            )
        )
        draft = real["cited"]["markdown"] + '\n"a quote that stands nowhere" ' + real["cited"]["citation"] + "\n"
        calls = [
            ("search", {"query": "retention period", "limit": 5}),
            ("check_answer", {"draft": draft}),
            ("resolve", {"citation": real["cited"]["citation"], "context": 3}),
            ("cite", {"path": "corpus/nope.md", "quote": "x"}),  # an error each time, too
        ]

        def run(count: int) -> None:
            for i in range(count):
                name, arguments = calls[i % len(calls)]
                session.call(name, arguments)

        run(200)  # warm: caches filled, allocator settled
        before = rss_kib(pid)
        run(1000)
        after = rss_kib(pid)
    assert after - before < 16 * 1024, f"server RSS grew from {before} KiB to {after} KiB over 1,000 calls"
