"""The vocabulary citations are judged in: every closed set of words a verdict, a check or a
recovery answers with, as one typed enumeration each (docs/design.md, the verdicts).

Each member is a `StrEnum`: it *is* its word (`VerdictStatus.VERIFIED == "verified"`), so JSON
output, text output and the site's files hold exactly the words they held as plain strings,
while mypy catches a misspelt member and a comparison of words from two different sets. No
other module writes these words as literals (tests/test_verdicts.py greps the package for them).

- `VerdictStatus` — resolution against a target: verified / drifted / unresolvable;
- `QuoteStatus` — the quote check: matched / wrong_ref / failed / unverifiable;
- `CheckStatus`, `Severity` — a `pincite check` record: a verdict's status or malformed, and
  whether it fails the check;
- `Outcome`, `Detail`, `AppliedBy` — a recovery attempt: what it found, what happened to the
  cited text, and what applied it (docs/recovery.md);
- `ChangeKind` — what became of a path between two commits, or at one step of the walk;
- `FollowedBy` — how a verdict followed the cited path to the target;
- `CitationForm` — how a citation was written in a document (what `scan` found);
- `CandidateKind` — what a discovery provider suggests;
- `CiteOutcome` — citing by a quote: cited, or ambiguous (the quote stands at several places).
"""

from __future__ import annotations

from enum import StrEnum


class VerdictStatus(StrEnum):
    """A citation's verdict against a target commit; "could not check" never becomes "drifted"."""

    VERIFIED = "verified"  # no diff hunk touches the span; the relocated span holds identical text
    DRIFTED = "drifted"  # a hunk overlaps the span, or the file was deleted
    UNRESOLVABLE = "unresolvable"  # the citation cannot be checked; the reason says why


class QuoteStatus(StrEnum):
    """The quote check of a citation that carries a quote."""

    MATCHED = "matched"  # the quote stands in the cited span (after the one normalization)
    WRONG_REF = "wrong_ref"  # it stands elsewhere at that commit: a suggested corrected citation
    FAILED = "failed"  # it stands nowhere readable at that commit
    UNVERIFIABLE = "unverifiable"  # the citation itself is unresolvable, or the quote is empty


class CheckStatus(StrEnum):
    """A `check` record's status: its verdict's, or malformed for a near-miss that is no citation.

    The first three are `VerdictStatus`'s words (`CheckStatus(verdict.status)`); a test keeps
    the two sets in step.
    """

    VERIFIED = "verified"
    DRIFTED = "drifted"
    UNRESOLVABLE = "unresolvable"
    MALFORMED = "malformed"  # it looks like a citation, but its selector is not one
    UNPINNED = "unpinned"  # a GitHub link into this repository at a branch, not a commit


class Severity(StrEnum):
    """What a `check` record does to the run."""

    ERROR = "error"  # fails the check
    WARNING = "warning"  # drifted, malformed or unpinned: fails with --strict
    OK = "ok"


class Outcome(StrEnum):
    """What one recovery attempt found (docs/recovery.md)."""

    RELOCATED = "relocated"  # an exact new citation
    SUGGESTED = "suggested"  # near matches only: suggestions, never applied
    NOT_FOUND = "not_found"  # the words stand nowhere at the target
    NEEDS_HUMAN = "needs_human"  # a person decides


class Detail(StrEnum):
    """What happened to the cited text between the pinned commit and the target."""

    SHIFTED = "shifted"  # git's diff moved the lines; the text is identical (verify: verified)
    MOVED = "moved"  # the text stands, exactly, somewhere else at the target
    CHANGED = "changed"  # the text was edited: only near matches remain
    REMOVED = "removed"  # the text stands nowhere at the target, not even nearly
    AMBIGUOUS = "ambiguous"  # the text stands, exactly, at several places
    OTHER_DOCUMENT = "other_document"  # it stands only in other documents; the cited one still exists
    NO_QUOTE = "no_quote"  # nothing to search for: no quote and no pinned text


class AppliedBy(StrEnum):
    """What rewrote a citation in its document."""

    FIX = "fix"  # `check --fix`: an exact relocation
    ACCEPT_MOVED = "accept-moved"  # `check --fix --accept-moved`: an exact move of the quote


class ChangeKind(StrEnum):
    """What became of a path between two commits (git's rename detection), or at one step of a walk.

    `vcs.repo.PathChange.status` holds the first four as git reports them; the walk along the
    index's intervals adds re-added (a path deleted and later written again).
    """

    UNCHANGED = "unchanged"
    MODIFIED = "modified"
    RENAMED = "renamed"
    DELETED = "deleted"
    READDED = "re-added"


class FollowedBy(StrEnum):
    """How a verdict followed the cited path to the target."""

    INDEX = "index"  # step by step along the index's path-version intervals
    GIT = "git"  # one rename detection between the two commits (outside the indexed history)


class CitationForm(StrEnum):
    """How a citation was written in a document."""

    TEXT = "text"  # PATH@SHA#L12-L18
    PERMALINK = "permalink"  # https://SITE/v/BLOB.html?commit=SHA&path=PATH#L12-L18
    GITHUB = "github"  # a GitHub blob URL with a line anchor
    NEAR_MISS = "near_miss"  # PATH@SHA# and something that is not a selector
    BRANCH_LINK = "branch_link"  # a GitHub blob URL at a branch (blob/main/...#L3): unpinned


class CandidateKind(StrEnum):
    """What a discovery provider suggests as the source of a quote."""

    URL = "url"
    PATH = "path"


class CiteOutcome(StrEnum):
    """Citing by a quote (the agent tool `cite`)."""

    CITED = "cited"
    AMBIGUOUS = "ambiguous"  # the quote stands at several places; every candidate is returned


class ImpactKind(StrEnum):
    """What a change did to a citation (`pincite impact`): the first three break it."""

    DRIFTED = "drifted"  # verified at the base, drifted at the head
    UNRESOLVABLE = "unresolvable"  # checkable at the base, not at the head
    QUOTE = "quote"  # its quote matched at the base and does not at the head
    MOVED = "moved"  # still verified, but its lines now stand at another path (a rename)
    MENDED = "mended"  # broken at the base, whole at the head
