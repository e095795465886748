"""One run's memory of what it looked up: a value per key, computed once.

A `Memo` belongs to one run (a `Resolver`, a `QuoteSearcher`) and is keyed by value — a
commit, a (blob, identity) pair — never by `id()`, so equal questions share one answer and
nothing outlives the run. With `remember_errors`, a look-up that failed with a `PinciteError`
is remembered as its error: asking again raises the same error without running git again.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Generic, TypeVar

from indexer.errors import PinciteError

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Memo(Generic[K, V]):
    """Values by key, each computed at most once (`get_or_compute`)."""

    def __init__(self, *, remember_errors: bool = False) -> None:
        self._values: dict[K, V | PinciteError] = {}
        self._remember_errors = remember_errors

    def get_or_compute(self, key: K, compute: Callable[[], V]) -> V:
        """The value for `key`, computed by `compute()` the first time it is asked for."""
        if key not in self._values:
            if not self._remember_errors:
                self._values[key] = compute()
            else:
                try:
                    self._values[key] = compute()
                except PinciteError as exc:
                    self._values[key] = exc
        return _value(self._values[key])

    def peek(self, key: K) -> V | None:
        """The value already known for `key`, if any (nothing is computed)."""
        found = self._values.get(key)
        return None if found is None or isinstance(found, PinciteError) else found

    def put_many(self, items: Iterable[tuple[K, V]]) -> None:
        """Values found in bulk (one git process for many keys), known from now on."""
        self._values.update(items)

    def __contains__(self, key: object) -> bool:
        return key in self._values

    def __len__(self) -> int:
        return len(self._values)


def _value(cached: V | PinciteError) -> V:
    if isinstance(cached, PinciteError):
        # Raised afresh: re-raising the instance would extend its traceback (and keep every frame
        # of every earlier raise alive) each time, so a long-running server would grow without end.
        raise cached.with_traceback(None)
    return cached
