"""The documentation keeps up with the code: every command, option and setting is documented."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from indexer.cli.main import main
from indexer.config import SETTINGS_HELP, Config, config_fields
from indexer.integrations import docsgen

ROOT = Path(__file__).resolve().parent.parent
DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def doc_texts() -> dict[str, str]:
    return {str(path.relative_to(ROOT)): path.read_text(encoding="utf-8") for path in DOC_FILES if path.is_file()}


def walk(group: click.Group, prefix: str = "pincite") -> Iterator[tuple[str, click.Command]]:
    context = click.Context(group)
    for name in group.list_commands(context):  # commands load on demand: ask the group, not its dict
        command = group.get_command(context, name)
        assert command is not None, name
        path = f"{prefix} {name}"
        yield path, command
        if isinstance(command, click.Group):
            yield from walk(command, path)


def long_flag(option: click.Option) -> str:
    flags = [flag for flag in (*option.opts, *option.secondary_opts) if flag.startswith("--")]
    return max(flags, key=len) if flags else option.opts[0]


def mentions(text: str, phrase: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", text) is not None


COMMANDS = list(walk(main))


def test_the_cli_has_commands() -> None:
    assert {"build", "search", "doctor", "check"} <= {path.split()[-1] for path, _ in COMMANDS}


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[path for path, _ in COMMANDS])
def test_command_and_its_options_are_documented(path: str, command: click.Command) -> None:
    texts = doc_texts()
    pages = {name: text for name, text in texts.items() if mentions(text, path)}
    assert pages, f"`{path}` is not mentioned in README.md or docs/*.md"
    options = [p for p in command.params if isinstance(p, click.Option) and not p.hidden]
    missing = [long_flag(o) for o in options if not any(mentions(t, long_flag(o)) for t in pages.values())]
    assert not missing, f"`{path}` options not documented in {sorted(pages)}: {', '.join(missing)}"


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[path for path, _ in COMMANDS])
def test_every_commands_help_shows_an_example(path: str, command: click.Command) -> None:
    if isinstance(command, click.Group):
        return  # a group's subcommands carry the examples
    assert "Example" in (command.help or ""), f"`{path} --help` shows no example"


def test_a_mistyped_command_gets_a_suggestion() -> None:
    result = CliRunner().invoke(main, ["verfy", "x"])
    assert result.exit_code == 2 and "no such command 'verfy': did you mean 'verify'?" in result.output
    result = CliRunner().invoke(main, ["frobnicate"])
    assert result.exit_code == 2 and "see `pincite --help`" in result.output


def test_global_options_are_documented() -> None:
    text = "\n".join(doc_texts().values())
    assert mentions(text, "pincite --version")
    options = [long_flag(p) for p in main.params if isinstance(p, click.Option) and not p.hidden]
    assert {"--quiet", "--verbose"} <= set(options)
    missing = [flag for flag in options if not mentions(text, f"pincite {flag}")]
    assert not missing, f"the group's options are not documented as `pincite OPTION`: {missing}"


def test_every_setting_has_help() -> None:
    names = [name for name, _default, _help in config_fields()]
    assert set(SETTINGS_HELP) == set(names) == set(Config.__dataclass_fields__)
    assert all(len(help_text) > 10 for _name, _default, help_text in config_fields())


def test_configuration_reference_is_current() -> None:
    assert docsgen.DOCS_FILE.read_text(encoding="utf-8") == docsgen.configuration_markdown(), (
        "docs/configuration.md is stale: run `python -m indexer.integrations.docsgen`"
    )
    assert docsgen.main(["--check"]) == 0


def test_configuration_reference_lists_every_setting() -> None:
    text = docsgen.configuration_markdown()
    for name, _default, help_text in config_fields():
        assert f"`{name}`" in text and help_text.replace("|", "\\|") in text
        assert f"`PINCITE_{name.upper()}`" in text


def test_stale_reference_is_detected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = tmp_path / "configuration.md"
    stale.write_text(docsgen.configuration_markdown().replace("`roots`", "`corpus_roots`"), encoding="utf-8")
    monkeypatch.setattr(docsgen, "DOCS_FILE", stale)
    assert docsgen.main(["--check"]) == 1


LINK = re.compile(r"\]\(([^)\s]+)\)")


def relative_links() -> list[tuple[str, str]]:
    links = []
    for path in DOC_FILES:
        if not path.is_file():
            continue
        text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
        text = re.sub(r"`[^`\n]*`", "", text)
        for target in LINK.findall(text):
            if not re.match(r"^[a-z]+:|^#|^<", target):
                links.append((str(path.relative_to(ROOT)), target.split("#", 1)[0]))
    return links


@pytest.mark.parametrize(("page", "target"), relative_links())
def test_relative_links_resolve(page: str, target: str) -> None:
    resolved = (ROOT / page).parent / target
    assert resolved.exists(), f"{page} links to {target}, which does not exist"


def test_the_api_examples_run_in_a_clone_of_this_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/api.md's examples, run in order in one namespace, as a reader would paste them."""
    clone = tmp_path / "pincite"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    monkeypatch.chdir(clone)
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "api.md").read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 7
    namespace: dict[str, object] = {}
    for block in blocks:
        exec(compile(block, "docs/api.md", "exec"), namespace)
    assert (clone / ".pincite" / "index.sqlite").is_file()


def test_every_test_named_in_the_reliability_page_exists() -> None:
    page = (ROOT / "docs" / "reliability.md").read_text(encoding="utf-8")
    named = re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", page)
    assert len(named) > 10
    missing = [
        f"{file}::{name}"
        for file, name in named
        if not re.search(rf"^def {name}\(", (ROOT / file).read_text(encoding="utf-8"), re.M)
    ]
    assert not missing, f"docs/reliability.md names tests that do not exist: {missing}"
