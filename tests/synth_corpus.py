"""A synthetic corpus repository for pincite's tests and benchmarks, generated from a fixed seed.

The same parameters always give the same repository, commit SHAs included, so figures
from different runs and machines describe the same input. Documents are Markdown with
headings, paragraphs, lists, code blocks and tables; words come from a made-up
vocabulary drawn with a Zipf-like distribution, so a few words are everywhere and most
are rare, as in real prose, and searches have realistic selectivity.

History: the first commit adds every document under `corpus/`; each later commit edits a
few documents (replaces, inserts or deletes a block, sometimes renames the file). The
whole history is written with one `git fast-import` process, which is what makes 10,000
documents and hundreds of commits take seconds rather than minutes.

Library use (tests and the benchmark scenarios in bench/ import this)::

    from tests.synth_corpus import SynthParams, generate
    corpus = generate(Path("/tmp/synth"), SynthParams(docs=2000, commits=500, files_per_commit=2))
    corpus.head, corpus.paths            # the tip commit and the document paths at it

Command line::

    python -m tests.synth_corpus /tmp/synth --docs 10000 --commits 200 --seed 1
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Synth Corpus",
    "GIT_AUTHOR_EMAIL": "synth@example.org",
    "GIT_COMMITTER_NAME": "Synth Corpus",
    "GIT_COMMITTER_EMAIL": "synth@example.org",
    "GIT_CONFIG_NOSYSTEM": "1",
}
EPOCH = 1_767_225_600  # 2026-01-01T00:00:00Z: fixed, so commit SHAs are reproducible
SYLLABLES = tuple(
    [
        "ka",
        "ro",
        "mi",
        "ten",
        "sal",
        "vor",
        "lin",
        "dra",
        "pe",
        "qu",
        "is",
        "an",
        "tor",
        "mel",
        "ba",
        "ric",
        "fen",
        "os",
        "ul",
        "tri",
        "gan",
        "hal",
        "per",
        "no",
        "zu",
        "e",
        "ci",
        "lo",
        "mar",
        "bel",
        "thi",
        "ges",
        "un",
        "dor",
        "fa",
        "wen",
        "syl",
        "cor",
        "ple",
        "ax",
        "im",
    ]
)
ACCENTED = ("café", "naïve", "façade", "Ångström", "señal", "über", "crème", "déjà")
LANGS = ("python", "sh", "json", "sql", "")


@dataclass(frozen=True)
class SynthParams:
    """What to generate. The defaults are the foundation benchmark's corpus."""

    docs: int = 10_000
    commits: int = 200  # commits after the initial one
    files_per_commit: int = 3
    seed: int = 1
    target_bytes: int = 50_000_000  # total size of the documents at the first commit
    vocabulary: int = 30_000
    rename_rate: float = 0.05  # share of touched files that are also renamed
    checkout: bool = True  # write the working tree (a normal clone), not just objects


@dataclass(frozen=True)
class SynthCorpus:
    root: Path
    params: SynthParams
    head: str
    commits: list[str]  # oldest first, the initial import included
    paths: list[str]  # document paths at the head commit
    total_bytes: int  # size of the documents at the first commit
    seconds: float
    edits: list[tuple[int, str, str]] = field(default_factory=list)  # (commit index, kind, path)


class Vocabulary:
    """Made-up words with Zipf-like frequencies (rank r drawn with weight 1/r^1.07)."""

    def __init__(self, rng: random.Random, size: int) -> None:
        words: set[str] = set()
        while len(words) < size:
            n = rng.choice((1, 2, 2, 3, 3, 3, 4))
            words.add("".join(rng.choice(SYLLABLES) for _ in range(n)))
        self.words = sorted(words)
        rng.shuffle(self.words)
        weights = [1.0 / (rank**1.07) for rank in range(1, size + 1)]
        self.cum = list(itertools.accumulate(weights))
        self.total = self.cum[-1]

    def draw(self, rng: random.Random, k: int) -> list[str]:
        cum, total, words = self.cum, self.total, self.words
        return [words[bisect.bisect(cum, rng.random() * total)] for _ in range(k)]

    def word_at_rank(self, rank: int) -> str:
        return self.words[rank]


class DocWriter:
    """Markdown blocks for one document; a document is a list of blocks joined by blank lines."""

    def __init__(self, vocab: Vocabulary) -> None:
        self.vocab = vocab

    def sentence(self, rng: random.Random) -> str:
        words = self.vocab.draw(rng, rng.randint(6, 22))
        if rng.random() < 0.03:
            words[rng.randrange(len(words))] = rng.choice(ACCENTED)
        text = " ".join(words)
        return text[0].upper() + text[1:] + rng.choice(".....?!;")

    def paragraph(self, rng: random.Random) -> str:
        return " ".join(self.sentence(rng) for _ in range(rng.randint(2, 7)))

    def block(self, rng: random.Random) -> str:
        roll = rng.random()
        if roll < 0.62:
            return self.paragraph(rng)
        if roll < 0.80:
            marker = rng.choice(("-", "*", "1."))
            return "\n".join(f"{marker} {self.sentence(rng)}" for _ in range(rng.randint(2, 6)))
        if roll < 0.92:
            lines = [
                f"{w} = {rng.choice(self.vocab.draw(rng, 2))}({rng.randint(0, 999)})"
                for w in self.vocab.draw(rng, rng.randint(2, 8))
            ]
            return "```" + rng.choice(LANGS) + "\n" + "\n".join(lines) + "\n```"
        cols = self.vocab.draw(rng, 3)
        rows = [" | ".join(self.vocab.draw(rng, 3)) for _ in range(rng.randint(2, 5))]
        return "\n".join([" | ".join(cols), " | ".join("---" for _ in cols), *rows])

    def heading(self, rng: random.Random, level: int) -> str:
        return "#" * level + " " + " ".join(self.vocab.draw(rng, rng.randint(2, 5))).capitalize()

    def document(self, rng: random.Random, target: int) -> list[str]:
        blocks = [self.heading(rng, 1), self.paragraph(rng)]
        size = sum(len(b) for b in blocks)
        while size < target - 200:  # the last block overshoots by about half a block
            if rng.random() < 0.18:
                blocks.append(self.heading(rng, rng.choice((2, 2, 3))))
            blocks.append(self.block(rng))
            size += len(blocks[-1]) + 2
        return blocks


def render(blocks: list[str]) -> bytes:
    return ("\n\n".join(blocks) + "\n").encode("utf-8")


def _doc_path(rng: random.Random, vocab: Vocabulary, i: int) -> str:
    folder = vocab.word_at_rank(500 + i % 97)
    return f"corpus/{folder}/{vocab.word_at_rank(1000 + i % 4000)}-{i:05d}.md"


def _edit(rng: random.Random, writer: DocWriter, blocks: list[str]) -> None:
    roll = rng.random()
    at = rng.randrange(1, len(blocks)) if len(blocks) > 1 else 1
    if roll < 0.5 and len(blocks) > 2:
        blocks[at] = writer.block(rng)
    elif roll < 0.8 or len(blocks) <= 3:
        blocks.insert(at, writer.block(rng))
    else:
        del blocks[at]


def _stream(params: SynthParams, out: list[tuple[int, str, str]], sizes: list[int]) -> Iterator[bytes]:
    """The fast-import stream: an initial commit of every document, then the edit commits."""
    rng = random.Random(params.seed)
    vocab = Vocabulary(rng, params.vocabulary)
    writer = DocWriter(vocab)
    mean = params.target_bytes / max(params.docs, 1)
    paths = [_doc_path(rng, vocab, i) for i in range(params.docs)]
    # Lognormal sizes (a few long documents, many short ones) scaled to the target total.
    raw = [rng.lognormvariate(0, 0.8) for _ in range(params.docs)]
    scale = mean * params.docs / max(sum(raw), 1e-9)
    doc_seeds = [rng.getrandbits(64) for _ in range(params.docs)]
    yield b"reset refs/heads/main\n"
    yield from _commit_header(0, "Import the synthetic corpus", first=True)
    for i, path in enumerate(paths):
        data = render(writer.document(random.Random(doc_seeds[i]), int(raw[i] * scale)))
        sizes.append(len(data))
        yield _modify(path, data)
    yield b"\n"
    edited: dict[int, list[str]] = {}
    for n in range(1, params.commits + 1):
        touched = rng.sample(range(params.docs), min(params.files_per_commit, params.docs))
        lines: list[bytes] = []
        for i in touched:
            if i not in edited:
                edited[i] = writer.document(random.Random(doc_seeds[i]), int(raw[i] * scale))
            _edit(rng, writer, edited[i])
            if rng.random() < params.rename_rate:
                new_path = paths[i].replace(".md", f"-r{n}.md")
                lines.append(f'D "{paths[i]}"\n'.encode())
                paths[i] = new_path
                out.append((n, "rename", new_path))
            else:
                out.append((n, "modify", paths[i]))
            lines.append(_modify(paths[i], render(edited[i])))
        yield from _commit_header(n, f"Edit {len(touched)} documents ({n})")
        yield from lines
        yield b"\n"


def _commit_header(n: int, message: str, first: bool = False) -> Iterator[bytes]:
    when = EPOCH + n * 3600
    msg = message.encode()
    yield b"commit refs/heads/main\n"
    yield f"mark :{n + 1}\n".encode()
    yield f"author Synth Corpus <synth@example.org> {when} +0000\n".encode()
    yield f"committer Synth Corpus <synth@example.org> {when} +0000\n".encode()
    yield f"data {len(msg)}\n".encode() + msg + b"\n"
    if not first:
        yield f"from :{n}\n".encode()


def _modify(path: str, data: bytes) -> bytes:
    return f'M 100644 inline "{path}"\ndata {len(data)}\n'.encode() + data + b"\n"


def git(root: Path, *args: str, input_bytes: bytes | None = None) -> str:
    env = {**os.environ, **GIT_ENV}
    proc = subprocess.run(["git", *args], cwd=root, env=env, input=input_bytes, capture_output=True)
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed in {root}: {proc.stderr.decode().strip()}")
    return proc.stdout.decode()


def generate(dest: Path, params: SynthParams | None = None) -> SynthCorpus:
    """Create the synthetic corpus repository at `dest` (which must not exist or be empty)."""
    params = params or SynthParams()
    started = time.monotonic()
    dest.mkdir(parents=True, exist_ok=True)
    if any(dest.iterdir()):
        raise FileExistsError(f"{dest} is not empty; give a new folder")
    git(dest, "init", "-q", "-b", "main")
    edits: list[tuple[int, str, str]] = []
    sizes: list[int] = []
    env = {**os.environ, **GIT_ENV}
    proc = subprocess.Popen(
        ["git", "fast-import", "--quiet", "--done"], cwd=dest, env=env, stdin=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdin is not None
    try:
        for piece in _stream(params, edits, sizes):
            proc.stdin.write(piece)
        proc.stdin.write(b"done\n")
        proc.stdin.close()
    except BrokenPipeError:
        pass
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    if proc.wait() != 0:
        raise RuntimeError(f"git fast-import failed in {dest}: {stderr.strip()}")
    if params.checkout:
        git(dest, "reset", "-q", "--hard", "main")
    commits = git(dest, "rev-list", "--reverse", "main").split()
    paths = git(dest, "ls-tree", "-r", "--name-only", "main", "--", "corpus").splitlines()
    return SynthCorpus(dest, params, commits[-1], commits, paths, sum(sizes), time.monotonic() - started, edits)


def commit_change(root: Path, path: str, addition: str, message: str = "Edit one document") -> str:
    """Append `addition` to one document in the working tree and commit it; return the SHA."""
    target = root / path
    target.write_bytes(target.read_bytes() + addition.encode("utf-8"))
    git(root, "add", "--", path)
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("dest", type=Path, help="new folder for the repository")
    defaults = SynthParams()
    parser.add_argument("--docs", type=int, default=defaults.docs, help="documents in the first commit")
    parser.add_argument("--commits", type=int, default=defaults.commits, help="edit commits after the first")
    parser.add_argument("--files-per-commit", type=int, default=defaults.files_per_commit)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--target-mb", type=float, default=defaults.target_bytes / 1e6, help="total size (MB)")
    parser.add_argument("--rename-rate", type=float, default=defaults.rename_rate)
    parser.add_argument("--no-checkout", action="store_true", help="write git objects only, no working tree")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    params = SynthParams(
        docs=args.docs,
        commits=args.commits,
        files_per_commit=args.files_per_commit,
        seed=args.seed,
        target_bytes=int(args.target_mb * 1e6),
        rename_rate=args.rename_rate,
        checkout=not args.no_checkout,
    )
    corpus = generate(args.dest, params)
    if args.json:
        print(
            json.dumps(
                {
                    "root": str(corpus.root),
                    "head": corpus.head,
                    "commits": len(corpus.commits),
                    "documents": len(corpus.paths),
                    "total_bytes": corpus.total_bytes,
                    "seconds": round(corpus.seconds, 2),
                    "params": asdict(params),
                }
            )
        )
    else:
        print(
            f"{corpus.root}: {len(corpus.paths)} documents, {corpus.total_bytes / 1e6:.1f} MB, "
            f"{len(corpus.commits)} commits, head {corpus.head[:12]} ({corpus.seconds:.1f} s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
