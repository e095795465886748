"""Agents: `check_answer` over MCP on a draft of 20 quoted citations, on a warm `pincite mcp` server.

A private clone of this repository (the sample corpus, its history), indexed at HEAD; one
`pincite mcp` process talks to the official SDK's client over stdio (tests/mcp_client.py).
Two drafts of 20 citations, each with its quote, spread over the corpus's documents:

- clean: every quote stands in its cited span (the final check before an answer is shown);
- sloppy: 16 as above, 2 fabricated quotes (`failed`) and 2 misattributed ones (`wrong_ref`),
  which send recovery searching.

For each: the first (cold) call, then the round trip of `WARM_CALLS` calls to the warm server
as the client sees it (p50 / p95 / max), and the same check in-process (`AgentTools`, no
protocol) for comparison. Target: clean, warm p50 <= 100 ms.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.scenarios import Result

WARM_CALLS = 50
TARGET_MS = 100.0
QUERIES = ("retention", "incident", "travel", "security", "on-call", "office", "board", "glossary", "remote", "logs")


def drafts(tools: Any) -> dict[str, str]:
    """Two drafts of 20 quoted citations over many documents: clean, and with 4 wrong quotes."""
    hits: list[dict[str, object]] = []
    seen: set[str] = set()
    for query in QUERIES:
        for hit in tools.search(query, limit=10)["hits"]:
            if hit["citation"] not in seen and len(str(hit["text"]).split()) >= 12:
                seen.add(str(hit["citation"]))
                hits.append(dict(hit))
    if len(hits) < 20:
        raise SystemExit(f"only {len(hits)} passages found for the draft")
    hits = hits[:20]

    def quote(hit: dict[str, object]) -> str:
        words = str(hit["text"]).replace('"', " ").split()
        return " ".join(words[2:10])

    clean = [f'Point {n}: "{quote(h)}" ({h["citation"]}).' for n, h in enumerate(hits)]
    sloppy = list(clean)
    for n in (3, 11):
        sloppy[n] = f'Point {n}: "the cooperative pays every member a bonus of {n} euros" ({hits[n]["citation"]}).'
    for n in (7, 15):
        sloppy[n] = f'Point {n}: "{quote(hits[n + 1])}" ({hits[n]["citation"]}).'
    return {"clean": "\n\n".join(clean), "sloppy": "\n\n".join(sloppy)}


def measure(tmp: Path) -> dict[str, object]:
    from indexer import build
    from indexer.integrations.agent_tools import AgentTools
    from tests.mcp_client import McpSession, clone_sample

    root = clone_sample(tmp / "repo")
    index = tmp / "index.sqlite"
    build(root, site=False, index_path=index)
    tools = AgentTools(root, index_path=index)
    texts = drafts(tools)
    results: dict[str, object] = {}
    with McpSession(root, index) as session:
        for name, draft in texts.items():
            started = time.perf_counter()
            first = session.call("check_answer", {"draft": draft})
            cold = time.perf_counter() - started
            assert not first.is_error and first.structured_content is not None, first.content
            summary = first.structured_content["summary"]
            times = []
            for _ in range(WARM_CALLS):
                started = time.perf_counter()
                session.call("check_answer", {"draft": draft})
                times.append(time.perf_counter() - started)
            local = []
            for _ in range(10):
                started = time.perf_counter()
                tools.check_answer(draft)
                local.append(time.perf_counter() - started)
            results[name] = {
                "citations": summary["citations"],
                "matched": summary["quote_matched"],
                "failed": summary["quote_failed"],
                "wrong_ref": summary["quote_wrong_ref"],
                "cold_ms": cold * 1000,
                "p50_ms": statistics.median(times) * 1000,
                "p95_ms": sorted(times)[int(0.95 * len(times)) - 1] * 1000,
                "max_ms": max(times) * 1000,
                "local_p50_ms": statistics.median(local) * 1000,
            }
    tools.close()
    return results


def markdown(result: dict[str, object]) -> str:
    lines = [
        "Corpus: the sample corpus (a private clone of this repository at HEAD, indexed).",
        f"Each draft: 20 citations with quotes over many documents; {WARM_CALLS} calls to the warm server, "
        "timed by the client (a round trip over stdio through the official SDK).",
        "",
        "| draft | quotes | first call | warm p50 | warm p95 | warm max | in-process p50 |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in ("clean", "sloppy"):
        r = result[name]
        assert isinstance(r, dict)
        quotes = f"{r['matched']} matched, {r['failed']} failed, {r['wrong_ref']} wrong_ref"
        lines.append(
            f"| {name} | {quotes} | {r['cold_ms']:.0f} ms | {r['p50_ms']:.1f} ms | {r['p95_ms']:.1f} ms "
            f"| {r['max_ms']:.1f} ms | {r['local_p50_ms']:.1f} ms |"
        )
    clean = result["clean"]
    assert isinstance(clean, dict)
    verdict = "met" if clean["p50_ms"] <= TARGET_MS else "NOT met"
    lines += [
        "",
        f"Target (clean draft, warm p50 <= {TARGET_MS:.0f} ms): **{verdict}**.",
    ]
    return "\n".join(lines)


def arguments(parser: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace) -> Result:
    with tempfile.TemporaryDirectory(prefix="pincite-mcp-bench-") as tmp:
        result = measure(Path(tmp))
    return Result(markdown(result), result)
