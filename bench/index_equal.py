"""Whether two indexes of the same corpus answer alike: `python -m bench.index_equal <index A> <index B>`.

A speed change of the build must leave what the index answers as it was. This compares two index
files (say, main's build and a branch's, of the same commit and settings):

- every row of `commits`, `versions`, `passage_spans`, the `passages` view and `path_versions`,
  in id order;
- the porter table's every token instance (its `fts5vocab` instance table);
- the answers of `search_passages` and `versions_matching` for words sampled from the passages,
  and of `search_substrings` for CJK pieces of 2–20 characters cut from the texts, alone and
  beside an ASCII word.

The trigram table is not compared row for row: which texts it holds is a schema decision
(`indexer.index.store`), and the substring answers above are what it is for. Prints what differs
and exits 1, or prints the counts compared and exits 0. Both files are opened read-only.
"""

from __future__ import annotations

import itertools
import random
import re
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

TABLES = {
    "commits": "SELECT * FROM commits ORDER BY seq",
    "versions": "SELECT * FROM versions ORDER BY id",
    "passage_spans": "SELECT * FROM passage_spans ORDER BY id",
    "passages": "SELECT * FROM passages ORDER BY id",
    "path_versions": "SELECT * FROM path_versions ORDER BY id",
}
VOCAB = (
    "CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, passages_fts, instance);"
    "SELECT term, doc, col, offset FROM temp.vocab"
)
WORDS = 400  # sampled words asked of search_passages and versions_matching
PIECES = 400  # sampled CJK pieces asked of search_substrings
_WORD = re.compile(r"[A-Za-z]{3,}")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]{2,}")


def _connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def _rows(conn: sqlite3.Connection, sql: str) -> Iterator[Any]:
    if sql.startswith("CREATE"):
        create, select = sql.split(";", 1)
        conn.execute(create)
        sql = select
    yield from conn.execute(sql)


def compare_rows(a: Path, b: Path) -> list[str]:
    """What differs between the tables of `a` and `b`, one line per table; [] when nothing does."""
    problems = []
    for name, sql in [*TABLES.items(), ("fts5vocab instance", VOCAB)]:
        left_rows, right_rows = _rows(_connect(a), sql), _rows(_connect(b), sql)
        count = 0
        for count, (left, right) in enumerate(itertools.zip_longest(left_rows, right_rows), start=1):
            if left != right:
                problems.append(f"{name}: row {count} differs: {left!r} != {right!r}")
                break
        else:
            print(f"{name}: {count:,} rows equal")
    return problems


def _samples(path: Path, seed: int = 28) -> tuple[list[str], list[str]]:
    """Words and CJK pieces cut from the passages of the index at `path`, the same for the same index."""
    rng = random.Random(seed)
    conn = _connect(path)
    texts = [row[0] for row in conn.execute("SELECT text FROM passages ORDER BY id")]
    words = sorted({w.lower() for t in rng.sample(texts, min(len(texts), 2000)) for w in _WORD.findall(t)})
    runs = [run for t in texts for run in _CJK.findall(t)]
    pieces: set[str] = set()
    for run in rng.sample(runs, min(len(runs), PIECES * 2)):
        size = rng.randint(2, min(20, len(run)))
        at = rng.randint(0, len(run) - size)
        pieces.add(run[at : at + size])
    return rng.sample(words, min(len(words), WORDS)), sorted(pieces)[:PIECES]


def compare_answers(a: Path, b: Path) -> list[str]:
    """What differs between the search answers of `a` and `b`; [] when nothing does."""
    from indexer.index.store import IndexReader

    readers = [IndexReader(a), IndexReader(b)]
    seq = readers[0].head_seq()
    words, pieces = _samples(a)
    problems = []
    asked = {"search_passages": 0, "versions_matching": 0, "search_substrings": 0}
    for word in words:
        query = f'"{word}"'
        found = [r.search_passages(query, seq, 20, None) for r in readers]
        asked["search_passages"] += 1
        if found[0] != found[1]:
            problems.append(f"search_passages({query!r}) differs")
        matching = [r.versions_matching([word], [], seq) for r in readers]
        asked["versions_matching"] += 1
        if matching[0] != matching[1]:
            problems.append(f"versions_matching({word!r}) differs")
    for piece in pieces:
        for fts in (None, f'"{words[0]}"' if words else None):
            found_sub = [r.search_substrings([piece], fts, seq, 50, None) for r in readers]
            asked["search_substrings"] += 1
            if found_sub[0] != found_sub[1]:
                problems.append(f"search_substrings({piece!r}, {fts!r}) differs")
    for reader in readers:
        reader.close()
    print(", ".join(f"{name}: {count} asked" for name, count in asked.items()))
    return problems


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    a, b = Path(argv[0]), Path(argv[1])
    problems = compare_rows(a, b) + compare_answers(a, b)
    for line in problems:
        print(line)
    print("the indexes answer alike" if not problems else f"{len(problems)} difference(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
