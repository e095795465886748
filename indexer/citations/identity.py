"""Which extractor identity's text a citation counts its offsets in (docs/design.md#d13).

Offsets of a PDF or HTML version count one extractor identity's text. A citation naming its
identity (`;x=TOKEN`) counts in exactly that identity's text, found among the identities the
index recorded for the blob, the active extractor's, or else those the extraction cache holds;
a token that names none of them, or several, is an error naming what is known. A citation
naming none counts in the active extractor's text — unless the index recorded several
identities for an extracted blob (which one it was made under cannot be told), or recorded
another one than the active extractor's (their offsets differ). Every refusal is an
`ExtractionError` that names both sides, so the verdict is unresolvable, never a guess.

These rules are pure: the `Resolver` passes in what it knows and reads the chosen text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from indexer.errors import ExtractionError
from indexer.text.citation import identity_token, names_identity


def cited_identity(
    token: str | None,
    where: str,
    recorded: tuple[str, ...],
    *,
    extracted: bool,
    active: Callable[[], str | None],
    cached: Callable[[], Iterable[str]],
) -> str | None:
    """The identity a citation with identity `token` counts in; None: the active one (a token naming none).

    `recorded` are the identities the index holds for the blob, oldest first; `extracted` says
    whether the cited path is extracted text; `active` and `cached` are asked only when needed
    (the active extractor's identity, None when it is not installed; the extraction cache's).
    Raises when the token names no identity known here or several, or there is no token while
    the index recorded several identities for an extracted blob.
    """
    if token is None:
        if len(recorded) > 1 and extracted:
            named = ", ".join(f"{i!r} (x={identity_token(i)})" for i in recorded)
            raise ExtractionError(
                f"{where} was indexed under {len(recorded)} extractor identities ({named}) "
                "and the citation does not say which one its offsets count",
                hint="add the one it was made under (;x=TOKEN, or &x=TOKEN in a permalink), or re-cite it",
            )
        return None
    active_identity = active()
    known = dict.fromkeys([*recorded, *([active_identity] if active_identity else [])])
    matches = [i for i in known if names_identity(token, i)]
    if not matches:
        matches = [i for i in cached() if names_identity(token, i)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise ExtractionError(
            f"{where}: extractor identity x={token} could be any of {', '.join(map(repr, matches))}",
            hint="write more hex digits of the identity's token",
        )
    named = ", ".join(f"{i!r} (x={identity_token(i)})" for i in known) or "none"
    raise ExtractionError(
        f"{where} is cited in the text of extractor identity x={token}, which neither the index nor the "
        f"extraction cache holds; known here: {named}",
        hint="their offsets differ: rebuild with the extractor version the citation was made with, or re-cite",
    )


def check_active_matches_recorded(where: str, recorded: str | None, active: str) -> None:
    """Refuse the active extractor's text for a citation naming no identity when the index recorded another."""
    if recorded is not None and recorded != active:
        raise ExtractionError(
            f"{where} was indexed with extractor {recorded!r} but the active one is {active!r}",
            hint="their offsets differ: install the recorded extractor version, or re-cite against a new build",
        )
