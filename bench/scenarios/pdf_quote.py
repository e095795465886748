"""The writer's loop on real PDFs: copy a sentence as a viewer does, cite it, check it.

For each PDF of a folder, N random sentences are taken from `pdftotext`'s text (a PDF viewer's
copy: its line breaks, its line-end hyphens, its ligatures), then cited with `cite --quote`
against pincite's own text of the PDF. Each lands in one bucket:

- exact: found without the ligature and hyphen folds (NFC, quotes, dashes, whitespace only);
- folded: found only with them (a line-end hyphen, a ligature, a compound split at a line end);
- near: not found, but `check` names a near place (the words in another spacing or order);
- not found.

Run: python -m bench pdf-quote --folder FOLDER [--per-pdf 10] [--seed 1] [--hyphenate] [--json]
It needs `pdftotext` (poppler-utils) and pincite's PDF extra. Poppler joins the words it finds
hyphenated at a line end; a viewer that copies lines as they stand gives "asyn-⏎chronously".
`--hyphenate` copies that way: one long word of each sentence is split at a line end with a hyphen.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bench.harness import GIT_IDENTITY_ENV
from bench.scenarios import Result

if TYPE_CHECKING:
    from indexer.citations.resolve import Resolver

BUCKETS = ("exact", "folded", "near", "not found")
# A sentence a writer would quote: a capital, 8 to 40 words, an end; it may run over line breaks.
_SENTENCE = re.compile(r"(?<![\w-])[A-Z][^.!?\f]{40,300}?[.!?](?=\s)")


@dataclass
class PdfResult:
    path: str
    buckets: Counter[str] = field(default_factory=Counter)
    skipped: str = ""
    examples: dict[str, str] = field(default_factory=dict)  # one quote per bucket, to look at


def viewer_sentences(pdf: Path, count: int, rng: random.Random) -> list[str]:
    """Up to `count` random sentences of `pdftotext`'s text of `pdf`, line breaks and all."""
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, check=False).stdout.decode(
        "utf-8", "replace"
    )
    found = [m.group(0) for m in _SENTENCE.finditer(text)]
    found = [s for s in found if 8 <= len(s.split()) <= 40 and "\n\n" not in s]
    return rng.sample(found, min(count, len(found)))


def hyphenated(sentence: str, rng: random.Random) -> str:
    """`sentence` with one of its longest words split at a line end, as a viewer copies a
    hyphenated line ("asyn-\\nchronously"); unchanged when no word has eight letters."""
    words = [m for m in re.finditer(r"[^\W\d_]{8,}", sentence)]
    if not words:
        return sentence
    word = rng.choice(words)
    cut = word.start() + rng.randint(3, len(word.group(0)) - 3)
    return sentence[:cut] + "-\n" + sentence[cut:]


def bucket_of(quote: str, path: str, text: str, resolver: Resolver, commit: str) -> str:
    """Which bucket the quote falls in (see the module docstring)."""
    from indexer.citations.quote import AmbiguousQuote, cite_quote, near_place
    from indexer.errors import UsageError
    from indexer.text.citation import Citation
    from indexer.text.normalize import normalize, normalize_spelling

    try:
        cite_quote(resolver, path, quote, commit)
        found = True
    except AmbiguousQuote:
        found = True
    except UsageError:
        found = False
    if found:
        return "exact" if normalize_spelling(quote) in normalize_spelling(text) else "folded"
    anywhere = resolver.resolve(Citation(commit, path, chars=(0, min(1, len(text)))))
    return "near" if near_place(normalize(quote), anywhere, resolver) is not None else "not found"


def loop(folder: Path, per_pdf: int = 10, seed: int = 1, *, hyphenate: bool = False) -> list[PdfResult]:
    """The loop on every PDF directly in `folder`, in a fresh repository built once."""
    from indexer.api import build
    from indexer.citations.resolve import Resolver
    from indexer.errors import PinciteError
    from indexer.vcs.repo import GitRepo

    if shutil.which("pdftotext") is None:
        raise SystemExit("pdftotext is not installed (apt-get install poppler-utils)")
    pdfs = sorted(p for p in folder.iterdir() if p.suffix.lower() == ".pdf")
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="pdf-quote-bench-") as tmp:
        root = Path(tmp) / "repo"
        (root / "corpus").mkdir(parents=True)
        for pdf in pdfs:
            shutil.copyfile(pdf, root / "corpus" / pdf.name)
        env = {**GIT_IDENTITY_ENV, "PATH": "/usr/bin:/bin:/usr/local/bin"}
        for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "the PDFs"]):
            subprocess.run(["git", *args], cwd=root, env=env, check=True)
        summary = build(root, site=False)
        skipped = {s.path: s.reason for s in summary.skipped}
        resolver = Resolver(GitRepo(root))
        commit = resolver.commit("HEAD")
        results = []
        for pdf in pdfs:
            path = f"corpus/{pdf.name}"
            result = PdfResult(path)
            results.append(result)
            if path in skipped:
                result.skipped = skipped[path]
                continue
            try:
                text = resolver.text_at(commit, path).text
            except PinciteError as exc:
                result.skipped = exc.message
                continue
            for sentence in viewer_sentences(pdf, per_pdf, rng):
                quote = hyphenated(sentence, rng) if hyphenate else sentence
                bucket = bucket_of(quote, path, text, resolver, commit)
                result.buckets[bucket] += 1
                result.examples.setdefault(bucket, quote)
        return results


def totals(results: list[PdfResult]) -> Counter[str]:
    total: Counter[str] = Counter()
    for result in results:
        total.update(result.buckets)
    return total


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--folder", type=Path, required=True, help="a folder of PDFs (e.g. from a fetched collection)")
    parser.add_argument("--per-pdf", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hyphenate", action="store_true", help="split a long word of each at a line end")


def run(args: argparse.Namespace) -> Result:
    results = loop(args.folder, args.per_pdf, args.seed, hyphenate=args.hyphenate)
    total = totals(results)
    indexed = [r for r in results if not r.skipped]
    rows = [{"path": r.path, "skipped": r.skipped, **{b: r.buckets[b] for b in BUCKETS}} for r in results]
    lines = [
        f"{len(results)} PDFs, {len(indexed)} indexed, {sum(total.values())} sentences"
        + (" (one word of each split at a line end)" if args.hyphenate else ""),
        "",
        "| " + " | ".join(BUCKETS) + " |",
        "|" + "---|" * len(BUCKETS),
        "| " + " | ".join(str(total[b]) for b in BUCKETS) + " |",
    ]
    return Result("\n".join(lines), {"total": {b: total[b] for b in BUCKETS}, "pdfs": rows})
