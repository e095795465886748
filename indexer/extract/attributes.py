"""What a repository declares about its files' text, in git's own attributes.

- `binary` or `-diff`: git treats the file as binary, so it has no text to cite;
- `encoding=<label>`: the file's bytes are in that encoding (iconv names, as git and gitk
  read them: `ISO-8859-1`, `cp1252`, `Shift_JIS`, ...), not UTF-8.

Declarations are read from the `.gitattributes` files committed at one commit (the built
commit for a build), so they are pinned with the corpus, never taken from the working
tree. They are the only source: there is no pincite setting that overrides them, so a
citation means the same text on every machine. (`working-tree-encoding` is not read: a
blob with that attribute is stored as UTF-8 already.)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from indexer.text.charsets import git_encoding
from indexer.text.model import UTF8
from indexer.vcs.repo import GitRepo

ATTRIBUTES = ("diff", "encoding")


@dataclass(frozen=True)
class Declared:
    """What the attributes say about one path."""

    encoding: str = UTF8  # a codec name from charsets.git_encoding
    binary: bool = False
    bad_label: str = ""  # an `encoding` value pincite cannot read as text


UNDECLARED = Declared()


# What a line of an attributes file must hold to declare one of ATTRIBUTES: its name, or a macro
# that sets it (`binary`, git's one built-in macro, or one a `[attr]` line defines).
_DECLARING = (*(name.encode() for name in ATTRIBUTES), b"binary", b"[attr]")
# Paths from which reading the attributes files first (three git processes) costs less than git's
# matching of every path (about 8 µs a path): a build's; a check's few cited paths go to git at once.
_FILES_FIRST = 1000


def declared_for(repo: GitRepo, commit: str, paths: Iterable[str]) -> dict[str, Declared]:
    """Declarations for `paths` at `commit`; paths without any are left out (they are UNDECLARED).

    When no attributes file of the commit holds a word that could declare one (most corpora's
    `.gitattributes` say `text` and `linguist-*` only), no path has a declaration and git's own
    matching is not run: for tldr's 38,365 pages it cost 0.3 s of CPU, for a result of none."""
    wanted = sorted(set(paths))
    if len(wanted) >= _FILES_FIRST and not any(
        word in text for text in repo.attribute_files(commit) for word in _DECLARING
    ):
        return {}
    found = repo.attributes_at(commit, wanted, ATTRIBUTES)
    return {path: _declared(values) for path, values in found.items()}


def _declared(values: dict[str, str]) -> Declared:
    binary = values.get("diff") == "unset"  # `binary` is the macro `-diff -merge -text`
    label = values.get("encoding", "")
    if label in ("", "set", "unset"):
        return Declared(binary=binary)
    codec = git_encoding(label)
    if codec is None:
        return Declared(binary=binary, bad_label=label)
    return Declared(codec, binary)
