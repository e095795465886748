"""citations.memo.Memo: one run's look-ups, each computed once, keyed by value."""

from __future__ import annotations

from types import TracebackType

import pytest

from indexer.citations.memo import Memo
from indexer.errors import PinciteError, RepositoryError


def test_a_value_is_computed_once_per_key_and_equal_keys_share_it() -> None:
    calls: list[tuple[str, str]] = []
    memo: Memo[tuple[str, str], str] = Memo()

    def compute(key: tuple[str, str]) -> str:
        calls.append(key)
        return "/".join(key)

    for _ in range(3):
        assert memo.get_or_compute(("a", "b"), lambda: compute(("a", "b"))) == "a/b"
    assert (
        memo.get_or_compute(tuple(["a", "b"]), lambda: compute(("a", "b"))) == "a/b"
    )  # an equal key, not the same object
    assert memo.get_or_compute(("a", "c"), lambda: compute(("a", "c"))) == "a/c"
    assert calls == [("a", "b"), ("a", "c")]
    assert ("a", "b") in memo and len(memo) == 2


def test_a_remembered_failure_raises_again_without_computing_again() -> None:
    calls = 0
    memo: Memo[str, str] = Memo(remember_errors=True)

    def fail() -> str:
        nonlocal calls
        calls += 1
        raise RepositoryError("no such commit", hint="fetch it")

    for _ in range(3):
        with pytest.raises(RepositoryError, match="no such commit") as raised:
            memo.get_or_compute("abc", fail)
        # raised afresh: the traceback does not grow with every ask (a long-running server)
        assert len(list(_frames(raised.value.__traceback__))) <= 3
    assert calls == 1
    assert memo.peek("abc") is None


def test_without_remember_errors_a_failure_is_asked_again() -> None:
    calls = 0
    memo: Memo[str, str] = Memo()

    def fail_once() -> str:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise PinciteError("transient")
        return "found"

    with pytest.raises(PinciteError):
        memo.get_or_compute("k", fail_once)
    assert memo.get_or_compute("k", fail_once) == "found" and calls == 2


def test_values_found_in_bulk_are_known_from_then_on() -> None:
    memo: Memo[tuple[str, str], list[int]] = Memo()
    memo.put_many([(("x", "y"), [1]), (("y", "z"), [])])
    assert memo.peek(("x", "y")) == [1] and memo.peek(("q", "r")) is None
    assert memo.get_or_compute(("y", "z"), lambda: pytest.fail("computed a value put in bulk")) == []


def _frames(tb: TracebackType | None) -> list[TracebackType]:
    found = []
    while tb is not None:
        found.append(tb)
        tb = tb.tb_next
    return found
