"""The benchmark runner: `python -m bench <scenario> [options] [--baseline CHECKOUT] [--write] [--json]`.

    python -m bench --list                       # every scenario, with its summary
    python -m bench check                        # run one and print its figures
    python -m bench build-search --docs 500 --baseline /path/to/other/checkout --write

`--write` rewrites the scenario's own section of BENCHMARKS.md (and no other); `--json` prints
every raw figure instead of the section's text. Run from the root of a pincite checkout.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path
from types import ModuleType

from bench import harness, report, scenarios


def _shown(argv: list[str]) -> str:
    """The command as the section shows it: no paths of this machine, the output flags left out."""
    words: list[str] = []
    for word in argv:
        if word in ("--write", "--json"):
            continue
        if words and words[-1] == "--baseline":
            words.append("<CHECKOUT>")
        elif word.startswith(("/", "~", "./", "../")):
            path = Path(word).expanduser()
            clone = (path / ".git").exists() and harness.repository_name(path) != path.name
            words.append(f"<clone of {harness.repository_name(path)}>" if clone else f"<{path.name or word}>")
        else:
            words.append(shlex.quote(word))
    return " ".join(["python -m bench", *words])


def _list() -> int:
    width = max(len(name) for name in scenarios.names())
    for name in scenarios.names():
        print(f"{name:{width}}  {scenarios.summary(scenarios.load(name))}")
    return 0


def parser_for(name: str, module: ModuleType) -> argparse.ArgumentParser:
    """The scenario's own options, then the runner's."""
    parser = argparse.ArgumentParser(
        prog=f"python -m bench {name}", description=module.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    module.arguments(parser)
    if getattr(module, "BASELINE", False):
        parser.add_argument("--baseline", type=Path, help="another pincite checkout, measured in the same run")
    parser.add_argument("--write", action="store_true", help="rewrite this scenario's section of BENCHMARKS.md")
    parser.add_argument("--json", action="store_true", help="print every raw figure as JSON")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("--list", "-l"):
        return _list()
    if argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    name = argv[0]
    try:
        module = scenarios.load(name)
    except KeyError:
        print(f"no scenario {name!r}; `python -m bench --list` lists them", file=sys.stderr)
        return 2
    parser = parser_for(name, module)
    args = parser.parse_args(argv[1:])
    info = harness.machine()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    result = module.run(args)
    info["load average"] += f" at the start, {harness.load()} at the end"
    print(json.dumps(result.figures, indent=2, default=str) if args.json else result.markdown)
    if args.write:
        at = f"pincite {harness.commit_of(harness.ROOT)}"
        if getattr(args, "baseline", None):
            at += f", baseline {harness.commit_of(args.baseline)}"
        header = [
            scenarios.summary(module),
            "",
            f"Command: `{_shown(argv)}`  ",
            f"Measured {started} at {at}.  ",
            *[f"{note}  " for note in result.notes],
            f"Machine: {harness.describe(info)}.",
        ]
        target = harness.ROOT / "BENCHMARKS.md"
        report.write_section(target, name, result.subject, "\n".join(header) + "\n\n" + result.markdown)
        harness.log(f"wrote the section {report.heading(name, result.subject)!r} of {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
