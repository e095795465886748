"""Turn `pincite build --json` / `check --json` / `impact --json` into GitHub Actions step outputs.

The composite action (`action.yml`) runs `python -m indexer.integrations.github build|check|impact FILE`
and appends what this prints to `$GITHUB_OUTPUT`: one `name=value` line per output, the
names the action declares. `python -m indexer.integrations.github keys` prints the cache keys of the
repository in the working folder (`api.cache_keys`) the same way, for the workflows' cache steps.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from indexer.citations.verdicts import CheckStatus, ImpactKind, QuoteStatus

# action output name -> key of `summary` in `pincite check --json`
CHECK_OUTPUTS = {
    "citations": "citations",
    "verified": CheckStatus.VERIFIED,
    "drifted": CheckStatus.DRIFTED,
    "unresolvable": CheckStatus.UNRESOLVABLE,
    "matched": f"quote_{QuoteStatus.MATCHED}",
    "wrong-ref": f"quote_{QuoteStatus.WRONG_REF}",
    "failed": f"quote_{QuoteStatus.FAILED}",
    "unverifiable": f"quote_{QuoteStatus.UNVERIFIABLE}",
}


# action output name -> key of `summary` in `pincite impact --json`
IMPACT_OUTPUTS = {"broken": "breaks", "moved": ImpactKind.MOVED, "mended": ImpactKind.MENDED}


def build_outputs(summary: dict[str, Any]) -> dict[str, str]:
    return {"site-path": str(summary.get("site_dir") or ""), "index-path": str(summary.get("index_path") or "")}


def check_outputs(report: dict[str, Any]) -> dict[str, str]:
    summary = report.get("summary", {})
    return {name: str(int(summary.get(key, 0))) for name, key in CHECK_OUTPUTS.items()}


def impact_outputs(report: dict[str, Any]) -> dict[str, str]:
    summary = report.get("summary", {})
    return {name: str(int(summary.get(key, 0))) for name, key in IMPACT_OUTPUTS.items()}


def format_outputs(outputs: dict[str, str]) -> str:
    # One line per output: a newline inside a value would start a new output.
    return "".join(f"{name}={value.replace(chr(10), ' ')}\n" for name, value in outputs.items())


OUTPUTS_OF = {"build": build_outputs, "check": check_outputs, "impact": impact_outputs}


def key_outputs() -> dict[str, str]:
    """The cache keys and folders of the repository in the working folder, under its settings."""
    from indexer.api import cache_keys
    from indexer.errors import PinciteError

    try:
        return cache_keys(".").to_json()
    except PinciteError as exc:
        print(f"ci_outputs: {exc}", file=sys.stderr)
        raise SystemExit(exc.exit_code) from exc


def main(argv: list[str]) -> int:
    if argv == ["keys"]:
        sys.stdout.write(format_outputs(key_outputs()))
        return 0
    if len(argv) != 2 or argv[0] not in OUTPUTS_OF:
        print("usage: python -m indexer.integrations.github build|check|impact FILE.json | keys", file=sys.stderr)
        return 2
    kind, path = argv
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8") or "{}")
    except (OSError, json.JSONDecodeError) as exc:
        # No outputs rather than zero counts: a missing report must not read as "all clear".
        print(f"ci_outputs: {path}: cannot read pincite's JSON ({exc})", file=sys.stderr)
        return 1
    outputs = OUTPUTS_OF[kind](data)
    sys.stdout.write(format_outputs(outputs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
