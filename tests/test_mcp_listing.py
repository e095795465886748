"""The MCP server's listings to the spec: resources in pages with cursors, a real prompt, clean descriptions."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from click.testing import CliRunner
from conftest import CorpusRepo
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from indexer.cli.main import main
from indexer.integrations.mcp_server import RESOURCES_PAGE, _cursor
from tests.mcp_client import McpSession

DOCUMENTS = RESOURCES_PAGE * 2 + 37


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[CorpusRepo, McpSession]]:
    repo = CorpusRepo(tmp_path_factory.mktemp("many") / "repo")
    repo.commit({f"corpus/note-{i:04d}.md": f"# Note {i}\n\nWord{i} stands here.\n" for i in range(DOCUMENTS)})
    built = CliRunner().invoke(main, ["build", "--repo", str(repo.root), "--no-site"])
    assert built.exit_code == 0, built.output
    with McpSession(repo.root) as session:
        yield repo, session


def test_resources_come_in_pages_that_together_list_every_document_once(many: tuple[CorpusRepo, McpSession]) -> None:
    _repo, session = many
    names: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        page = session._ask(lambda c, at=cursor: c.list_resources(cursor=at, cache_mode="bypass"))
        assert len(page.resources) <= RESOURCES_PAGE
        names += [r.name for r in page.resources]
        pages += 1
        cursor = page.next_cursor
        if cursor is None:
            break
    assert pages == 3
    assert names == sorted(f"corpus/note-{i:04d}.md" for i in range(DOCUMENTS))


@pytest.mark.parametrize("cursor", ["not base64 at all!", _cursor("0" * 40, 100), _cursor("x", -5)])
def test_a_cursor_that_is_not_from_this_listing_is_invalid_params(
    many: tuple[CorpusRepo, McpSession], cursor: str
) -> None:
    _repo, session = many
    with pytest.raises(MCPError) as refused:
        session._ask(lambda c: c.list_resources(cursor=cursor, cache_mode="bypass"))
    assert refused.value.code == INVALID_PARAMS and "list resources again" in refused.value.message


def test_the_prompt_capability_offers_the_citation_loop(many: tuple[CorpusRepo, McpSession]) -> None:
    _repo, session = many
    prompts = session._ask(lambda c: c.list_prompts(cache_mode="bypass")).prompts
    assert [p.name for p in prompts] == ["answer-with-citations"]
    assert [(a.name, a.required) for a in prompts[0].arguments or []] == [("question", True)]
    got = session._ask(lambda c: c.get_prompt("answer-with-citations", {"question": "How long are logs kept?"}))
    text = got.messages[0].content.text  # type: ignore[union-attr]
    assert "How long are logs kept?" in text
    for step in ("`search`", "`cite`", "`check_answer`", "`failed`", "`wrong_ref`"):
        assert step in text


def test_tool_descriptions_are_prose_without_indentation_runs(many: tuple[CorpusRepo, McpSession]) -> None:
    _repo, session = many
    for tool in session.list_tools().tools:
        assert tool.description and "\n" not in tool.description and "  " not in tool.description, tool.name
