"""`pincite init` on a user's repository: the roots it picks, the files it writes, and never overwriting."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import yaml
from click.testing import CliRunner
from conftest import CorpusRepo
from hypothesis import given
from hypothesis import strategies as st

from indexer.cli.main import main
from indexer.config import Config, load_config
from indexer.integrations.starter import CONVENTIONAL_ROOTS, WORKFLOW_FILE, detect_roots, workflow_text

ROOT = Path(__file__).resolve().parent.parent


def init(repo: CorpusRepo, *args: str) -> dict[str, object]:
    result = CliRunner().invoke(main, ["init", "--repo", str(repo.root), "--json", *args])
    assert result.exit_code == 0, result.output
    answer: dict[str, object] = json.loads(result.output)
    return answer


def test_a_conventional_docs_folder_is_the_root() -> None:
    assert detect_roots(["README.md", "docs/a.md", "docs/b/c.rst", "src/x.py", "src/NOTES.md"]) == ("docs",)


def test_folders_of_mostly_documents_are_roots_when_no_conventional_one_exists() -> None:
    paths = ["guide/a.md", "guide/b.md", "guide/logo.png", "src/main.py", "src/lib.py", "src/README.md"]
    assert detect_roots(paths) == ("guide",)


def test_documents_only_at_the_top_make_the_whole_repository_the_root() -> None:
    assert detect_roots(["README.md", "CHANGES.rst", "src/main.py"]) == (".",)
    assert detect_roots(["src/main.py"]) == ("docs",)  # nothing to index yet: the folder to write into


_name = st.sampled_from([*CONVENTIONAL_ROOTS, "guide", "src", "node_modules", ".github", "tests", "x"])
_file = st.sampled_from(["a.md", "b.rst", "c.adoc", "d.pdf", "e.py", "f.png", "g.txt"])


@given(st.lists(st.tuples(st.one_of(st.none(), _name), _file), max_size=30))
def test_every_root_picked_holds_documents(entries: list[tuple[str | None, str]]) -> None:
    paths = sorted({f"{folder}/{name}" if folder else name for folder, name in entries})
    roots = detect_roots(paths)
    documents = [p for p in paths if not p.endswith((".py", ".png"))]
    if not documents:
        assert roots == ("docs",)
        return
    for root in roots:
        assert root == "." or any(p.startswith(root + "/") for p in documents), (root, paths)
        assert root not in ("node_modules", ".github", "tests")


def test_init_writes_settings_ignores_and_never_overwrites(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"docs/guide.md": "# Guide\n\nWords.\n", "src/app.py": "print()\n", "README.md": "# App\n"})
    first = init(corpus_repo)
    assert first["roots"] == ["docs"] and first["documents"] == 1
    assert first["written"] == ["pincite.toml"] and first["ignored"] == ["_site/", ".pincite/"]
    settings = (corpus_repo.root / "pincite.toml").read_text(encoding="utf-8")
    assert tomllib.loads(settings) == {"roots": ["docs"]}  # every other setting is a comment
    assert load_config(corpus_repo.root) == Config(roots=("docs",))
    for name in Config.__dataclass_fields__:
        assert f"# {name} = " in settings or name == "roots"
    files = {p: p.read_bytes() for p in (corpus_repo.root / "pincite.toml", corpus_repo.root / ".gitignore")}

    second = init(corpus_repo)
    assert second["written"] == [] and second["kept"] == ["pincite.toml"] and second["ignored"] == []
    assert {p: p.read_bytes() for p in files} == files


def test_init_keeps_the_users_own_settings_file(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"docs/a.md": "x\n", "pincite.toml": 'roots = ["handbook"]\n'})
    answer = init(corpus_repo)
    assert answer["kept"] == ["pincite.toml"]
    assert (corpus_repo.root / "pincite.toml").read_text() == 'roots = ["handbook"]\n'


def test_the_settings_init_writes_give_a_working_build(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"docs/guide.md": "# Guide\n\nRetention is seven years.\n"})
    init(corpus_repo)
    corpus_repo.git("add", "-A")
    corpus_repo.git("commit", "-q", "-m", "set up pincite")
    built = CliRunner().invoke(main, ["build", "--repo", str(corpus_repo.root), "--no-site", "--json"])
    assert built.exit_code == 0, built.output
    assert corpus_repo.git("status", "--porcelain").strip() == ""  # the index folder is ignored
    found = CliRunner().invoke(main, ["search", "retention", "--repo", str(corpus_repo.root)])
    assert "docs/guide.md" in found.output


def test_init_ci_writes_the_sites_workflow_with_pincite_installed_by_name(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"docs/a.md": "x\n"})
    assert WORKFLOW_FILE in init(corpus_repo, "--ci")["written"]
    written = yaml.safe_load((corpus_repo.root / WORKFLOW_FILE).read_text(encoding="utf-8"))
    ours = yaml.safe_load((ROOT / ".github" / "workflows" / "site.yml").read_text(encoding="utf-8"))
    assert written == yaml.safe_load(workflow_text())

    def shape(workflow: dict[str, object]) -> list[list[str]]:
        jobs = workflow["jobs"]
        assert isinstance(jobs, dict)
        return [[str(s.get("uses", s.get("name", ""))).split("@")[0] for s in job["steps"]] for job in jobs.values()]

    assert shape(written) == shape(ours)  # the same steps as pincite's own site workflow
    runs = [s.get("run", "") for s in written["jobs"]["build"]["steps"]]
    assert "python -m pip install 'pincite[all]'" in runs and "pincite check --format github ." in runs
