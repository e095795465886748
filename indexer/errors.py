"""One exception hierarchy for pincite; the CLI maps each class to an exit code.

    PinciteError (1)                   any failure pincite reports to the user
    ├── UsageError (2)                 bad option values or malformed input strings
    │   └── CitationSyntaxError (2)    a citation string that does not parse
    ├── ConfigError (2)                a broken [tool.pincite] / pincite.toml
    ├── RepositoryError (3)            not a repository, no commits, unknown or non-commit rev
    │   └── ShallowHistoryError (3)    history the work needs is missing from a shallow clone
    ├── IndexError_ (4)                index missing, locked, or of another schema version
    ├── ExtractionError (5)            one document's text could not be obtained
    │   └── BinaryFileError (5)        git treats the file as binary: it has no text to cite
    ├── FetchError (6)                 a snapshot fetch failed or was refused
    │   └── GuardRefusal (6)           the SSRF guard refused a URL
    └── CheckFailed (7)                check found failed / wrong_ref / unresolvable citations

Messages name the input and say what to do; they are shown without a traceback.
"""

from __future__ import annotations


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
    exit_code = 2


class CitationSyntaxError(UsageError):
    pass


class ConfigError(PinciteError):
    exit_code = 2


class RepositoryError(PinciteError):
    exit_code = 3


SHALLOW_HINT = (
    "this clone looks shallow: fetch the full history with `git fetch --unshallow`, "
    "or set `fetch-depth: 0` on actions/checkout in CI"
)


class ShallowHistoryError(RepositoryError):
    def __init__(self, message: str) -> None:
        super().__init__(message, hint=SHALLOW_HINT)


class IndexError_(PinciteError):  # noqa: N801 - builtin IndexError is unrelated
    exit_code = 4


class ExtractionError(PinciteError):
    exit_code = 5


class BinaryFileError(ExtractionError):
    """A file git treats as binary (a NUL byte early on, or a `binary`/`-diff` attribute)."""


class FetchError(PinciteError):
    exit_code = 6


class GuardRefusal(FetchError):
    pass


class CheckFailed(PinciteError):
    exit_code = 7
