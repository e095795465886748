"""One exception hierarchy for pincite; the CLI maps each class to an exit code.

    PinciteError (1)                   any failure pincite reports to the user
    ├── UsageError (2)                 bad option values or malformed input strings
    │   └── CitationSyntaxError (2)    a citation string that does not parse
    ├── ConfigError (2)                a broken [tool.pincite] / pincite.toml
    ├── RepositoryError (3)            not a repository, no commits, non-commit rev
    │   ├── UnknownRevision (3)        a revision or commit this clone does not have
    │   ├── ShallowHistoryError (3)    history the work needs is missing from a shallow clone
    │   └── MissingBlob (3)            a blob the object store does not hold (a partial clone)
    ├── IndexError_ (4)                index missing, locked, or of another schema version
    ├── ExtractionError (5)            one document's text could not be obtained
    │   ├── CpuLimitExceeded (5)       it used more CPU than its limit (remembered: it would again)
    │   ├── ExtractionHung (5)         the wall-clock backstop stopped it waiting (tried again next build)
    │   └── BinaryFileError (5)        git treats the file as binary: it has no text to cite
    ├── FetchError (6)                 a snapshot fetch failed or was refused
    │   └── GuardRefusal (6)           the SSRF guard refused a URL
    ├── CheckFailed (7)                check found failed / wrong_ref / unresolvable citations
    └── OutputError (8)                the index or site could not be written (disk full, no permission)

Messages name the input and say what to do; they are shown without a traceback.
"""

from __future__ import annotations

import contextlib
import errno
from collections.abc import Iterator
from pathlib import Path


class PinciteError(Exception):
    """Base class: a problem pincite explains to its user."""

    exit_code = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message}\n  hint: {self.hint}"
        return self.message


class UsageError(PinciteError):
    """A mistake in what the user asked for: an option, an argument, a path (exit 2)."""

    exit_code = 2


class CitationSyntaxError(UsageError):
    """A citation (text form, permalink or GitHub URL) that does not parse; the message quotes it."""


def did_you_mean(*forms: str) -> str:
    """How every near miss (a mistyped command, a path or span not spelled canonically) names the right form."""
    return f"did you mean {' or '.join(repr(form) for form in forms)}?"


MISSING_BLOB_HINT = (
    "a partial or damaged clone: `git fetch` the missing objects, or run `git fsck` to see what else is gone"
)


class ConfigError(PinciteError):
    """A setting that cannot be used: its name, where it was read and why (exit 2)."""

    exit_code = 2


class RepositoryError(PinciteError):
    """The git repository cannot answer: not a repository, a bare one, a missing object (exit 3)."""

    exit_code = 3


class UnknownRevision(RepositoryError):
    """A commit, branch or tag that the repository does not have."""


SHALLOW_HINT = (
    "this clone looks shallow: fetch the full history with `git fetch --unshallow`, "
    "or set `fetch-depth: 0` on actions/checkout in CI"
)


class ShallowHistoryError(RepositoryError):
    """The history pincite needs is cut off by a shallow clone; the hint says how to fetch it."""

    def __init__(self, message: str) -> None:
        super().__init__(message, hint=SHALLOW_HINT)


class MissingBlob(RepositoryError):
    """A blob the repository's object store does not hold; `sha` names it."""

    def __init__(self, sha: str) -> None:
        super().__init__(f"cannot read blob {sha}: it is missing from the object store", hint=MISSING_BLOB_HINT)
        self.sha = sha


class IndexError_(PinciteError):  # noqa: N801 - builtin IndexError is unrelated
    """The index file is missing, not an index, of another schema or unusable (exit 4)."""

    exit_code = 4


class IndexDamaged(IndexError_):
    """SQLite found the index file corrupt (a damaged page): `build` sets it aside and rebuilds."""

    def __init__(self, path: str) -> None:
        super().__init__(
            f"the index {path} is damaged: move it away or delete it; `pincite build` rebuilds it",
            hint="`pincite build` keeps the damaged file beside the new one, named .damaged-<time>",
        )
        self.path = path


class ExtractionError(PinciteError):
    """Messages start with the path the bytes were read as: `<path>: <reason>`."""

    exit_code = 5

    def reason_for(self, path: str) -> str:
        """The message without its leading `<path>: `.

        One blob can stand at many paths, so what is stored per blob must not name one of
        them; the path is put back where the reason is printed.
        """
        prefix = f"{path}: "
        return self.message.removeprefix(prefix)


class CpuLimitExceeded(ExtractionError):
    """Work on one document that used more CPU than its limit allows (`extract_timeout_seconds`).

    CPU time, unlike time on the clock, hardly depends on how loaded the machine is: the same
    bytes under the same limit run over it again, so a build remembers this failure.
    """


class ExtractionHung(ExtractionError):
    """Work on one document stopped by the wall-clock backstop of its CPU limit: it waited, it did
    not work (a pipe or a child program that did not answer). Not remembered: the next build
    tries the document again."""


class BinaryFileError(ExtractionError):
    """A file git treats as binary (a NUL byte early on, or a `binary`/`-diff` attribute)."""


class FetchError(PinciteError):
    """A snapshot fetch that failed: network, status, size, time or content type (exit 6)."""

    exit_code = 6


class GuardRefusal(FetchError):
    """A URL the network guard refuses (a private address, a redirect, another scheme)."""


class CheckFailed(PinciteError):
    """A check or verify that found citations failing (exit 7); the report says which."""

    exit_code = 7


class OutputError(PinciteError):
    """An output that cannot be written: no space, no permission, a read-only folder (exit 8)."""

    exit_code = 8


_NO_SPACE = (errno.ENOSPC, errno.EDQUOT)
_NOT_ALLOWED = (errno.EACCES, errno.EPERM, errno.EROFS)


def output_error(exc: OSError, what: str, target: Path) -> OutputError:
    """An OutputError for an OSError met while writing `what` at `target`, with what to do."""
    where = exc.filename or target
    if exc.errno in _NO_SPACE:
        return OutputError(
            f"{where}: no space left while writing {what}; nothing was replaced",
            hint="free some disk space (or point the output at another disk) and build again",
        )
    if exc.errno in _NOT_ALLOWED:
        return OutputError(
            f"{where}: not allowed to write {what} here ({exc.strerror}); nothing was replaced",
            hint=f"make {Path(where).parent} writable, or choose another path (--index / --out)",
        )
    return OutputError(f"{where}: could not write {what}: {exc.strerror or exc}", hint="fix the path and build again")


@contextlib.contextmanager
def writing(what: str, target: Path) -> Iterator[None]:
    """Turn an OSError raised while writing `what` into an OutputError that names `target`."""
    try:
        yield
    except OSError as exc:
        raise output_error(exc, what, target) from exc
