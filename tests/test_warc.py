"""WARC export of committed snapshots, read back with warcio's own reader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import CorpusRepo
from warcio.archiveiterator import ArchiveIterator
from webserver import WebServer

from indexer.cli.main import main
from indexer.errors import PinciteError
from indexer.snapshots.guard import FetchLimits
from indexer.snapshots.store import FetchOptions, snapshot, snapshot_provenance

LOCAL = FetchOptions(allow_private=True, limits=FetchLimits(total_timeout=10.0))


pytestmark = pytest.mark.usefixtures("git_identity")


@pytest.fixture
def archived(web: WebServer, corpus_repo: CorpusRepo) -> tuple[CorpusRepo, list[str]]:
    corpus_repo.commit({"corpus/readme.md": "# Corpus\n"})
    html = web.page("/policy.html", "<html><body><p>Travel is booked through the portal.</p></body></html>")
    md = web.page("/notes.md", "# Notes\n\nCafé hours changed.\n", "text/markdown; charset=utf-8")
    snapshot([html, md], corpus_repo.root, options=LOCAL)
    return corpus_repo, [html, md]


def read(path: Path) -> list[tuple[str, dict[str, str], bytes, bool]]:
    records = []
    with path.open("rb") as handle:
        for record in ArchiveIterator(handle, check_digests=True):
            headers = dict(record.rec_headers.headers)
            payload = record.content_stream().read()
            records.append((record.rec_type, headers, payload, record.digest_checker.passed is not False))
    return records


def test_every_snapshot_becomes_a_resource_and_a_metadata_record(
    archived: tuple[CorpusRepo, list[str]], tmp_path: Path
) -> None:
    repo, urls = archived
    out = tmp_path / "corpus.warc.gz"
    from indexer.snapshots.warc import export_warc

    done = export_warc(repo.root, out)
    assert done.snapshots == 2 and done.records == 5 and done.commit == repo.head()
    records = read(out)
    assert [r[0] for r in records] == ["warcinfo", "resource", "metadata", "resource", "metadata"]
    assert all(ok for *_, ok in records)
    assert b"pincite/" in records[0][2] and repo.head().encode() in records[0][2]
    by_uri = {h["WARC-Target-URI"]: (h, body) for kind, h, body, _ in records if kind == "resource"}
    assert set(by_uri) == set(urls)
    for kind, headers, body, _ in records:
        if kind != "metadata":
            continue
        resource_headers, resource_body = by_uri[headers["WARC-Target-URI"]]
        assert headers["WARC-Concurrent-To"] == resource_headers["WARC-Record-ID"]
        meta = json.loads(body)
        assert resource_body == repo.git("show", f"HEAD:{_path_of(repo, meta['url'])}").encode()
        assert resource_headers["WARC-Date"] == meta["fetched_at"]
        assert resource_headers["WARC-IP-Address"] == "127.0.0.1"
        assert resource_headers["WARC-Payload-Digest"] == f"sha256:{meta['sha256']}"
        assert resource_headers["Content-Type"].startswith(meta["content_type"])


def _path_of(repo: CorpusRepo, url: str) -> str:
    for line in repo.git("ls-files", "snapshots").split():
        if line.endswith(".meta.json"):
            body = line[: -len(".meta.json")]
            meta = snapshot_provenance(repo.root, repo.head(), body)
            if meta is not None and meta.url == url:
                return body
    raise AssertionError(url)


def test_the_same_commit_exports_to_the_same_bytes(archived: tuple[CorpusRepo, list[str]], tmp_path: Path) -> None:
    from indexer.snapshots.warc import export_warc

    repo, _ = archived
    first, second = tmp_path / "a" / "corpus.warc", tmp_path / "b" / "corpus.warc"
    export_warc(repo.root, first)
    export_warc(repo.root, second)
    assert first.read_bytes() == second.read_bytes()
    assert first.read_bytes().startswith(b"WARC/1.1\r\n")  # no .gz: plain WARC


def test_export_of_chosen_urls_and_of_an_unknown_one(archived: tuple[CorpusRepo, list[str]], tmp_path: Path) -> None:
    from indexer.snapshots.warc import export_warc

    repo, urls = archived
    done = export_warc(repo.root, tmp_path / "one.warc.gz", urls=[urls[1] + "#top"])
    assert done.snapshots == 1
    with pytest.raises(PinciteError, match="no snapshot of"):
        export_warc(repo.root, tmp_path / "none.warc.gz", urls=["https://example.org/never"])
    assert not (tmp_path / "none.warc.gz").exists()


def test_cli_export_warc(archived: tuple[CorpusRepo, list[str]], tmp_path: Path) -> None:
    repo, _ = archived
    out = tmp_path / "cli.warc.gz"
    runner = CliRunner()
    result = runner.invoke(main, ["snapshot", "--repo", str(repo.root), "--export-warc", str(out), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["snapshots"] == 2 and out.exists()
    refused = runner.invoke(main, ["snapshot", "--repo", str(repo.root), "--export-warc", str(out), "--refresh"])
    assert refused.exit_code == 2
