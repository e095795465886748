"""The JSON Schema of each command's `--json` output, made from the record shapes of indexer/shapes.py.

A record's shape is written once, as a TypedDict: its `to_json()` returns it (mypy checks the
fields), the MCP tools' output schemas are made of its views, and the schema files published
in the package (`indexer/schemas/<command>.schema.json`) are generated from it here, as is
the reference page docs/json.md. Every object of a schema lists its fields exactly (no others
allowed), so a field added to a record without its shape fails the tests that validate each
command's real output against its schema.

python -m indexer.integrations.json_schemas           rewrite the schema files and docs/json.md
python -m indexer.integrations.json_schemas --check   exit 1 when one of them is stale (tests run this)

Generating needs pydantic (a dependency of the `mcp` extra and of the tests); reading a
published schema (`load_schema`) needs nothing.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from indexer import shapes

SCHEMA_DIR = Path(__file__).resolve().parents[1] / "schemas"
DOCS_FILE = Path(__file__).resolve().parents[2] / "docs" / "json.md"
DIALECT = "https://json-schema.org/draft/2020-12/schema"


@dataclass(frozen=True)
class Output:
    """One command's `--json` output: the command line that prints it and its shape."""

    name: str  # the schema file's stem
    command: str
    shape: Any
    about: str


OUTPUTS = (
    Output("build", "pincite build --json", shapes.BuildSummaryJson, "what the build did"),
    Output("search", "pincite search QUERY --json", list[shapes.SearchHitJson], "an array of hits, best first"),
    Output("cite", "pincite cite PATH ... --json", shapes.CitedJson, "the new citation in every form"),
    Output("resolve", "pincite resolve CITATION --json", shapes.ResolvedTextJson, "the pinned text"),
    Output(
        "verify",
        "pincite verify CITATION... --json",
        list[shapes.VerifiedJson],
        "an array with one verdict per citation, in the order given",
    ),
    Output(
        "check",
        "pincite check PATHS --json",
        shapes.CheckOutputJson,
        "the records, then the counts (`--report FILE` writes the same)",
    ),
    Output("pin", "pincite pin ITEMS --json", shapes.PinnedJson, "the cited commits and the new pin refs"),
    Output("locate", "pincite locate QUOTE --json", shapes.LocatedJson, "where the quote stands"),
    Output(
        "impact",
        "pincite impact --base REV --json",
        shapes.ImpactJson,
        "the citations the change alters (`--report FILE` writes the same)",
    ),
    Output(
        "snapshot", "pincite snapshot URL... --json", list[shapes.SnapshotResultJson], "an array, one result per URL"
    ),
    Output(
        "snapshot-export-warc",
        "pincite snapshot --export-warc FILE --json",
        shapes.WarcExportJson,
        "the WARC file written",
    ),
    Output("doctor", "pincite doctor --json", shapes.DoctorJson, "every check and whether all passed"),
    Output("init", "pincite init --json", shapes.InitJson, "what init found and wrote"),
    Output("textconv", "pincite textconv FILE --json", shapes.TextconvJson, "the extracted text and its identity"),
)


def output(name: str) -> Output:
    for one in OUTPUTS:
        if one.name == name:
            return one
    raise KeyError(name)


def schema_path(name: str) -> Path:
    return SCHEMA_DIR / f"{name}.schema.json"


def load_schema(name: str) -> dict[str, Any]:
    """The published schema of output `name` (a name of OUTPUTS: `check`, `verify`, ...)."""
    loaded: dict[str, Any] = json.loads(schema_path(name).read_text(encoding="utf-8"))
    return loaded


def generated_schema(one: Output) -> dict[str, Any]:
    """The published schema of `one`: its shape as pydantic reads the TypedDicts, every object closed."""
    made = _made(one)
    return {"$schema": DIALECT, **made, "title": one.command, "description": _sentence(one.about)}


def _made(one: Output) -> dict[str, Any]:
    from pydantic import TypeAdapter  # only to generate: the published files need nothing

    closed: dict[str, Any] = _closed(TypeAdapter(one.shape).json_schema())
    return closed


def records(one: Output) -> tuple[str, dict[str, dict[str, Any]]]:
    """The name of `one`'s top record and every record its schema holds, by name."""
    made = _made(one)
    found = dict(made.get("$defs", {}))
    if made.get("type") == "array":
        return made["items"]["$ref"].rsplit("/", 1)[-1], found
    body = {k: v for k, v in made.items() if k != "$defs"}
    found[made["title"]] = body
    return made["title"], found


def _closed(node: Any) -> Any:
    """`node` with each object's fields listed exactly (no other key allowed) and pydantic's field titles dropped."""
    if isinstance(node, list):
        return [_closed(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _closed(value) for key, value in node.items()}
    if "properties" in out:
        out["properties"] = {
            field: {k: v for k, v in spec.items() if k != "title"} for field, spec in out["properties"].items()
        }
        out["additionalProperties"] = False
    return out


def schema_text(one: Output) -> str:
    return json.dumps(generated_schema(one), indent=2, ensure_ascii=False) + "\n"


# -- the reference page -------------------------------------------------------------------
_INTRO = """\
# JSON output

<!-- Generated by `python -m indexer.integrations.json_schemas` from indexer/shapes.py: edit the shapes there. -->

Every command that prints results takes `--json` (`cite` also takes `--format json`, its older
spelling). `--json` together with another `--format` (`github`, `sarif`, `markdown`) is a usage
error (exit status 2), never one of them silently. The same thing has the same name in every
output: `chars` is a span in code points (`[start, end)`), `lines` 1-based inclusive lines,
`target_commit` the commit a citation was judged against, `citation` a text form to copy.

Each output has a JSON Schema (draft 2020-12) in the installed package, `indexer/schemas/<name>.schema.json`;
`indexer.integrations.json_schemas.load_schema("check")` reads one. Every object lists its fields
exactly, and the tests validate each command's real output against its schema. The MCP server's
tools answer with views of the same records (docs/agents.md): a field has one name and one type
in both.

| output | command | schema | what it is |
|---|---|---|---|
"""


def json_markdown() -> str:
    """docs/json.md: each output's command and top record, then every record's fields and types."""
    lines = [_INTRO.rstrip("\n")]
    every: dict[str, dict[str, Any]] = {}
    for one in OUTPUTS:
        top, found = records(one)
        every.update(found)
        shape = f"[{top}](#{top.lower()})"
        if one.shape is not None and getattr(one.shape, "__origin__", None) is list:
            shape = "array of " + shape
        lines.append(f"| {one.name} | `{one.command}` | `{one.name}.schema.json` | {one.about}: {shape} |")
    for name in sorted(every):
        record = every[name]
        lines += ["", f"## {name}", "", _sentence(record.get("description", "")), ""]
        lines += ["| field | type |", "|---|---|"]
        lines += [f"| `{field}` | {_type(spec)} |" for field, spec in record.get("properties", {}).items()]
    return "\n".join(lines) + "\n"


def _type(spec: dict[str, Any]) -> str:
    if "$ref" in spec:
        name = spec["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name.lower()})"
    if "anyOf" in spec:
        return " or ".join(_type(option) for option in spec["anyOf"])
    kind = spec.get("type", "any")
    if kind == "array":
        return f"array of {_type(spec.get('items', {}))}"
    if kind == "object" and "additionalProperties" in spec and isinstance(spec["additionalProperties"], dict):
        return f"object of {_type(spec['additionalProperties'])}"
    return str(kind)


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") or not text else ".")


# -- writing and checking ---------------------------------------------------------------------
def expected_files() -> dict[Path, str]:
    files = {schema_path(one.name): schema_text(one) for one in OUTPUTS}
    files[DOCS_FILE] = json_markdown()
    return files


def stale_files() -> list[Path]:
    """The schema files and docs page that differ from what the shapes generate (or are missing)."""
    return [
        path for path, text in expected_files().items() if not path.exists() or path.read_text(encoding="utf-8") != text
    ]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if "--check" in args:
        stale = stale_files()
        for path in stale:
            print(f"{path} is stale: run `python -m indexer.integrations.json_schemas`", file=sys.stderr)
        return 1 if stale else 0
    SCHEMA_DIR.mkdir(exist_ok=True)
    for path, text in expected_files().items():
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
