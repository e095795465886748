"""Export committed snapshots as a WARC file, for web archivists (optional extra `warc`).

The committed form stays git-friendly (the body plus a JSON file); the WARC is derived
from a commit and touches no network. Per snapshot it holds a `resource` record (the
body as stored, dated at its fetch time, with the address it came from) and a `metadata`
record concurrent to it (the committed `.meta.json`), after one `warcinfo` record. Record
ids are derived from the content, so exporting the same commit twice gives the same file.
"""

from __future__ import annotations

import os
import tempfile
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from io import BytesIO
from pathlib import Path
from typing import Any

from indexer import __version__
from indexer.files import atomic_writer
from indexer.errors import PinciteError
from indexer.vcs.repo import GitRepo
from indexer.snapshots.netaddr import canonical_url
from indexer.snapshots.store import META_SUFFIX, SnapshotMeta, list_snapshots
from indexer.text.kinds import SNAPSHOT_ROOT
from indexer.shapes import WarcExportJson

INSTALL_HINT = "pip install 'pincite[warc]'"
_NAMESPACE = uuid.UUID("4f3c2b1a-9d8e-4c7b-a6f5-e4d3c2b1a098")


@dataclass(frozen=True)
class WarcExport:
    path: str
    commit: str
    snapshots: int
    records: int

    def to_json(self) -> WarcExportJson:
        return {"path": self.path, "commit": self.commit, "snapshots": self.snapshots, "records": self.records}


def export_warc(
    repo: GitRepo | Path | str, out: Path | str, commit: str = "HEAD", urls: list[str] | tuple[str, ...] = ()
) -> WarcExport:
    """Write the snapshots committed at `commit` (all, or those of `urls`) to `out` as WARC.

    `out` ending in `.gz` gets one gzip member per record, as archives expect.
    """
    writer_class = _writer_class()
    git = repo if isinstance(repo, GitRepo) else GitRepo(repo)
    sha = git.resolve_commit(commit)
    metas = _selected(list_snapshots(git, sha), urls)
    blobs = {entry.path: entry.sha for entry in git.tree_entries(sha, (SNAPSHOT_ROOT,))}
    target = Path(out)
    with atomic_writer(target) as handle:
        writer = writer_class(handle, gzip=target.name.endswith(".gz"), warc_version="1.1")
        writer.write_record(_warcinfo(writer, git, sha, target.name, len(metas)))
        for meta in metas:
            for record in _records(writer, git, sha, meta, blobs):
                writer.write_record(record)
    return WarcExport(str(target), sha, len(metas), 1 + 2 * len(metas))


def _writer_class() -> Any:
    try:
        from warcio.warcwriter import WARCWriter
    except ImportError as exc:
        raise PinciteError("WARC export needs the warcio library, which is not installed", hint=INSTALL_HINT) from exc
    return WARCWriter


def _selected(metas: list[SnapshotMeta], urls: list[str] | tuple[str, ...]) -> list[SnapshotMeta]:
    if not urls:
        return metas
    wanted = {canonical_url(url): url for url in urls}
    chosen = [m for m in metas if canonical_url(m.url) in wanted]
    missing = sorted(set(wanted) - {canonical_url(m.url) for m in chosen})
    if missing:
        raise PinciteError(
            f"no snapshot of {wanted[missing[0]]} is committed", hint="snapshot it first: pincite snapshot URL"
        )
    return chosen


def _record_id(*parts: str) -> str:
    return f"<urn:uuid:{uuid.uuid5(_NAMESPACE, chr(0).join(parts))}>"


def _warc_date(iso: str) -> str:
    return iso if iso.endswith("Z") else iso.replace("+00:00", "Z")


def _warcinfo(writer: Any, git: GitRepo, sha: str, filename: str, count: int) -> Any:
    info = {
        "software": f"pincite/{__version__}",
        "format": "WARC File Format 1.1",
        "description": f"{count} pincite snapshot(s) committed at {sha}",
        "isPartOf": str(git.origin_url() or git.root.name),
    }
    record = writer.create_warcinfo_record(filename, info)
    record.rec_headers.replace_header("WARC-Record-ID", _record_id("warcinfo", sha))
    committed = datetime.fromtimestamp(git.commit_info(sha).time, UTC)
    stamp = committed.isoformat().replace("+00:00", "Z")
    record.rec_headers.replace_header("WARC-Date", stamp)
    return record


def _records(writer: Any, git: GitRepo, sha: str, meta: SnapshotMeta, blobs: dict[str, str]) -> list[Any]:
    """The resource and metadata records of one snapshot; `blobs` is the commit's snapshots/ tree."""
    body_blob = blobs.get(meta.path)
    meta_blob = blobs.get(meta.path + META_SUFFIX)
    if body_blob is None or meta_blob is None:
        raise PinciteError(f"{meta.path}: the snapshot or its metadata is missing at {sha[:12]}")
    body = git.read_blob(body_blob)
    content_type = meta.content_type + (f"; charset={meta.charset}" if meta.charset else "")
    resource_id = _record_id("resource", meta.final_url, meta.sha256, meta.fetched_at)
    headers = {
        "WARC-Record-ID": resource_id,
        "WARC-Date": _warc_date(meta.fetched_at),
        "WARC-Payload-Digest": f"sha256:{meta.sha256}",
    }
    if meta.resolved_ip:
        headers["WARC-IP-Address"] = meta.resolved_ip
    resource = writer.create_warc_record(
        meta.final_url,
        "resource",
        payload=BytesIO(body),
        length=len(body),
        warc_content_type=content_type,
        warc_headers_dict=headers,
    )
    metadata_bytes = git.read_blob(meta_blob)
    metadata = writer.create_warc_record(
        meta.final_url,
        "metadata",
        payload=BytesIO(metadata_bytes),
        length=len(metadata_bytes),
        warc_content_type="application/json",
        warc_headers_dict={
            "WARC-Record-ID": _record_id("metadata", resource_id),
            "WARC-Date": _warc_date(meta.fetched_at),
            "WARC-Concurrent-To": resource_id,
        },
    )
    return [resource, metadata]
