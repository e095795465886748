"""Random document histories for property tests: moves in and out of the roots, edits, deletions.

Three documents start in `corpus/` (the roots are `corpus` and `snapshots`); each step moves one to
another folder (two of them outside the roots), grows it by more than git's rename threshold
allows over a few steps, deletes it, restores it where it last stood, or writes a new document at
the path it started from once it has moved away (as rust-lang/book made `src/` again after moving
it to `second-edition/src/`).
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import strategies as st

from tests.conftest import CorpusRepo

FOLDERS = ("corpus", "corpus/deep", "archive", "attic")  # the last two are outside the roots
ROOTS = ("corpus",)  # where the documents of these histories are indexed
ALL_FOLDERS = ("corpus", "archive", "attic")
STEPS = st.lists(
    st.tuples(
        st.sampled_from(["move", "grow", "delete", "restore", "remake"]), st.integers(0, 2), st.sampled_from(FOLDERS)
    ),
    min_size=1,
    max_size=9,
)
STAYS = "corpus/stays.md"  # a document that never changes: the root is never empty


def document_text(n: int) -> str:
    return "".join(f"line {k} of document {n}\n" for k in range(1, 11))


def commit_history(
    repo: CorpusRepo, steps: list[tuple[str, int, str]], after_each: Callable[[], None] | None = None
) -> list[str]:
    """Commit the steps (a step that does not apply commits nothing new); the commits, oldest first.

    `after_each` runs after every commit (the first included): a build, say."""
    texts = {n: document_text(n) for n in range(3)}
    where: dict[int, str | None] = {n: f"corpus/d{n}.md" for n in range(3)}
    last_path = dict(where)
    remade: set[str] = set()
    first: dict[str, str | bytes | None] = {STAYS: "# Stays\n"}
    first.update((f"corpus/d{n}.md", texts[n]) for n in range(3))
    commits = [repo.commit(first)]
    if after_each:
        after_each()
    for step, (kind, n, folder) in enumerate(steps):
        current, change = where[n], dict[str, str | bytes | None]()
        taken = set(where.values()) | remade
        if kind == "move" and current is not None and f"{folder}/d{n}.md" not in taken:
            where[n] = last_path[n] = f"{folder}/d{n}.md"
            change = {current: None, where[n]: texts[n]}
        elif kind == "grow" and current is not None:
            texts[n] += "".join(f"step {step} adds sentence {k} of other words\n" for k in range(6))
            change = {current: texts[n]}
        elif kind == "delete" and current is not None:
            where[n], change = None, {current: None}
        elif kind == "restore" and current is None and last_path[n] not in taken:
            where[n] = last_path[n]
            change = {last_path[n]: texts[n]}
        elif kind == "remake" and f"corpus/d{n}.md" not in taken:
            remade.add(f"corpus/d{n}.md")
            change = {f"corpus/d{n}.md": f"# A new document {n}\n\nWritten at step {step}.\n"}
        commits.append(repo.commit(change, message=f"{kind} {n} {step}"))
        if after_each:
            after_each()
    return commits
