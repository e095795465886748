"""The site's manifest: what each reused file of the site was rendered from (docs/design.md#d12).

It is a folder, `.pincite-site/`, keyed by path: the records of each path (and of each version's
blob, each published file, each diff page) sit in one of 256 shard files, `<shard>.json`, chosen by
the rule the history files are sharded by (`render.history_shard`); beside them a small top record,
`top.json`, holds what the whole site shares (the fingerprint, the search base, the index it was
built from) and a digest of every shard. A one-file build writes the shards whose records changed
and the top record, not the records of 38,000 pages again.

Trust: the top record ends with its seal, a digest of the bytes before it, and names each shard's
digest; a manifest is reused only when the top's seal holds and every shard it names is there with
that digest. A manifest edited, cut short or half replaced (an update stopped between the shards and
the top record) fails the check, and the build renders the site whole instead of reusing a page on a
false record. A shard on disk the top record does not name is not read.

A site written before the manifest was sharded holds `.pincite-site.json`, one sealed JSON object:
it is still a pincite site (the build may replace it), but its records are not read; the first
build renders it whole and writes the sharded form.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import chain, compress, filterfalse
from operator import ne
from pathlib import Path
from typing import Any

from indexer import __version__
from indexer.files import atomic_write
from indexer.site.render import history_shard

MANIFEST = ".pincite-site"  # the folder
TOP = f"{MANIFEST}/top.json"
# The manifest of a site written before it was sharded: recognised as a site, never read.
LEGACY_MANIFEST = ".pincite-site.json"
# In the site while an update moves files in: a site that holds it without a journal beside it
# (its work folder lost, as a CI cache keeps the site alone) has pages its manifest does not
# describe, so no page of it is reused.
UPDATING = ".pincite-updating"

PREVIOUS_NONE = "none"
PREVIOUS_REUSED = "reused"

# The records kept per key, each in the shard of its key: by blob (versions), by path (docs,
# history, links, changes, over_budget, stamps), by file of the site (files, diffs).
# by blob, the Sphinx labels and glossary terms a reST version defines (places).
TABLES = ("versions", "docs", "history", "files", "links", "changes", "diffs", "over_budget", "stamps", "places")


@dataclass
class Manifest:
    """What a site's reused files were rendered from, by key, and what the whole site shares."""

    fingerprint: str = ""
    versions: dict[str, str] = field(default_factory=dict)
    docs: dict[str, str] = field(default_factory=dict)
    history: dict[str, str] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    # The relative links of each document page as written, with their kind: [[url, kind], ...].
    links: dict[str, list[list[str]]] = field(default_factory=dict)
    changes: dict[str, str] = field(default_factory=dict)  # history pages by path
    diffs: dict[str, str] = field(default_factory=dict)  # diff pages by file
    search_base: list[str] = field(default_factory=list)  # the base search bundle's part folders under pagefind/
    over_budget: dict[str, str] = field(default_factory=dict)  # document pages shown as source, and why
    # What the citation scan read of the tree (cited_by.Scanned): the commit, the documents with a hint.
    scanned: dict[str, Any] = field(default_factory=dict)
    # The index this site was built from (carry.IndexState) and the document pages' shared inputs
    # (carry.doc_inputs): what the next build compares to carry the untouched paths' keys over.
    index: dict[str, Any] = field(default_factory=dict)
    doc_inputs: str = ""
    # The titles many documents share (`corpus_titles.shared_at_head`), as a digest: a version page of an
    # untouched path keeps its recorded key only while that set is the same (its title may turn generic).
    version_inputs: str = ""
    # The digest of the site's home file (`home.HOME_FILE`): its kept sections and folders' figures are
    # read only when the file is still the one this manifest was written with.
    home: str = ""
    texts: str = ""  # likewise the digest of its kept word counts (`head_texts.TEXTS_FILE`)
    # Each document page's file as written (`_stamp`: its size and modification time): a page is kept
    # only while its file still is that one, not deleted or edited in the site folder since.
    stamps: dict[str, str] = field(default_factory=dict)
    # What each reST blob defines of Sphinx's labels and glossary terms (`places.Scanned.to_json`).
    places: dict[str, str] = field(default_factory=dict)
    # As read (not saved as fields): each shard's digest, and each shard's records as its file holds them.
    shards: dict[str, str] = field(default_factory=dict)
    read: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    # What a save wrote: the shard files, and those it left empty (the update in place removes them).
    written: list[str] = field(default_factory=list)
    emptied: list[str] = field(default_factory=list)

    @classmethod
    def load(cls, site: Path) -> tuple[Manifest, str]:
        """The previous site's manifest, and what became of it: reused, or why it is ignored.

        A manifest is trusted only when this pincite wrote it and its seals (the top record's, and the
        digest it holds of each shard) still hold: a site restored from a CI cache may come from another
        pincite, or have been edited or cut short, and a page reused on a false record would be a wrong page.
        """
        if (site / UPDATING).exists():  # its journal is gone (a site restored from a cache): pages may be newer
            return cls(), "ignored: an update of it was cut short"
        try:
            raw = (site / TOP).read_bytes()
            data = json.loads(raw)
        except FileNotFoundError:
            if (site / LEGACY_MANIFEST).exists():
                return cls(), f"ignored: its manifest is of an earlier form ({LEGACY_MANIFEST})"
            return cls(), PREVIOUS_NONE
        except (OSError, ValueError):
            return cls(), "ignored: its manifest cannot be read"
        if not isinstance(data, dict):
            return cls(), "ignored: its manifest cannot be read"
        if data.get("pincite") != __version__:
            made_by = f"pincite {data['pincite']}" if data.get("pincite") else "a pincite that recorded no version"
            return cls(), f"ignored: made by {made_by}, not {__version__}"
        unsealed = "ignored: its manifest does not match its seal (edited or cut short)"
        if not _sealed(raw):
            return cls(), unsealed
        try:
            manifest = cls(
                _text(data["fingerprint"]),
                search_base=_folders(data["search_base"]),
                scanned=_scanned_record(data.get("scanned", {})),
                index=dict(data.get("index", {})),
                doc_inputs=str(data.get("doc_inputs", "")),
                version_inputs=str(data.get("version_inputs", "")),
                home=str(data.get("home", "")),
                texts=str(data.get("texts", "")),
                shards=_strings(data["shards"]),
            )
            for shard, digest in sorted(manifest.shards.items()):
                if not _is_shard_name(shard):
                    raise ValueError("not a shard")
                try:
                    body = (site / MANIFEST / f"{shard}.json").read_bytes()
                except OSError:
                    return cls(), unsealed
                if hashlib.sha256(body).hexdigest() != digest:
                    return cls(), unsealed
                manifest._add_shard(shard, json.loads(body))
        except (KeyError, TypeError, ValueError):
            return cls(), "ignored: its manifest is not one this pincite writes"
        return manifest, PREVIOUS_REUSED

    def _add_shard(self, shard: str, data: object) -> None:
        """Take in one shard's records, type-checked in C (a shard holds a record per page of it)."""
        if not isinstance(data, dict) or not data.keys() <= set(TABLES):
            raise TypeError("not a shard")
        for table, records in data.items():
            if table == "links":
                _links(records)
            else:
                _strings(records)
            getattr(self, table).update(records)
        self.read[shard] = data

    def save(self, site: Path, old: Manifest, in_place: bool) -> None:
        """Write the manifest into `site`: every shard, or, where the site is updated in place (its
        other shards stay where they are), the shards whose records changed since the previous
        site's manifest `old`; then the top record."""
        if in_place:
            keys = self._changed_keys(old)
            changed = {history_shard(key) for key in keys}
            for shard in changed:  # the other records of the shards written again
                for records in old.read.get(shard, {}).values():
                    keys.update(records)
            shards = _group(self, keys)
            digests = {shard: digest for shard, digest in old.shards.items() if shard not in changed}
            self.emptied = sorted(shard for shard in changed - shards.keys() if shard in old.shards)
        else:
            shards, digests = _group(self, None), {}
        folder = site / MANIFEST
        folder.mkdir(parents=True, exist_ok=True)
        for shard, records in sorted(shards.items()):
            body = json.dumps(records, sort_keys=True).encode("utf-8")
            # A shard cut short by a crash no longer matches its digest: the top record, written last
            # and durably, is what makes the shards the manifest.
            (folder / f"{shard}.json").write_bytes(body)
            digests[shard] = hashlib.sha256(body).hexdigest()
        self.written = sorted(shards)
        top = {
            "pincite": __version__,
            "fingerprint": self.fingerprint,
            "search_base": self.search_base,
            "scanned": self.scanned,
            "index": self.index,
            "doc_inputs": self.doc_inputs,
            "version_inputs": self.version_inputs,
            "home": self.home,
            "texts": self.texts,
            "shards": dict(sorted(digests.items())),
        }
        atomic_write(site / TOP, _with_seal(json.dumps(top, sort_keys=True).encode("utf-8")))

    def _changed_keys(self, old: Manifest) -> set[str]:
        """The keys of the records this manifest adds, changes or drops against `old`.

        Compared in C (`map`, `compress`, `filterfalse`), not by a loop in Python over every record: only
        the changed keys' shards are then hashed.
        """
        changed: set[str] = set()
        for table in TABLES:
            new_records, old_records = getattr(self, table), getattr(old, table)
            changed.update(compress(new_records, map(ne, map(old_records.get, new_records), new_records.values())))
            changed.update(filterfalse(new_records.__contains__, old_records))
        return changed


def _group(manifest: Manifest, keys: Iterable[str] | None) -> dict[str, dict[str, Any]]:
    """The records of `keys` (None: of every key) by shard, table by table; a table left empty is left out.

    A key's shard is a hash of it (`history_shard`), computed once for all the tables that hold it.
    """
    computed: dict[str, str] = {}

    def shard_of(key: str) -> str:
        found = computed.get(key)
        if found is None:
            found = computed[key] = history_shard(key)
        return found

    shards: dict[str, dict[str, Any]] = {}
    wanted = None if keys is None else list(keys)
    for table in TABLES:
        records: dict[str, Any] = getattr(manifest, table)
        chosen = records.items() if wanted is None else [(k, records[k]) for k in wanted if k in records]
        for key, value in chosen:
            shards.setdefault(shard_of(key), {}).setdefault(table, {})[key] = value
    return shards


def has_manifest(site: Path) -> bool:
    """A manifest pincite wrote: a top record that ends with a seal, or (an earlier pincite's single
    `.pincite-site.json`) a file that does, or a JSON object with the site fingerprint.

    Whether the seals hold is the manifest's load to say (`Manifest.load`); asked here whether the
    folder may be replaced, the seal's place is read alone.
    """
    for name in (TOP, LEGACY_MANIFEST):
        try:
            with open(site / name, "rb") as file:
                file.seek(max(0, file.seek(0, os.SEEK_END) - _SEAL_BYTES))
                if _SEAL_TAIL.search(file.read()):
                    return True
        except OSError:
            continue
    try:
        data = json.loads((site / LEGACY_MANIFEST).read_bytes())
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and isinstance(data.get("fingerprint"), str)


# The top record ends with its seal: a digest of the JSON before it, the object closed where the seal
# opens. Made and checked over the bytes written, not over a second serialization.
_SEAL_TAIL = re.compile(rb', "seal": "([0-9a-f]{64})"\}\s*$')
_SEAL_BYTES = 100  # the seal is found in the record's last bytes


def _with_seal(body: bytes) -> bytes:
    """The JSON `body` (an object) with its seal added as the last field."""
    return body[:-1] + b', "seal": "' + hashlib.sha256(body).hexdigest().encode("ascii") + b'"}'


def _sealed(raw: bytes) -> bool:
    """Whether a record's seal matches the bytes before it: an edited or truncated one no longer does."""
    found = _SEAL_TAIL.search(raw, max(0, len(raw) - _SEAL_BYTES))
    return found is not None and hashlib.sha256(raw[: found.start()] + b"}").hexdigest() == found[1].decode()


def _is_shard_name(name: str) -> bool:
    return len(name) == 2 and all(c in "0123456789abcdef" for c in name)


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("not a string")
    return value


def _strings(value: object) -> dict[str, str]:
    # The types of the keys and values gathered in C (a shard's mapping holds a record per page).
    if not isinstance(value, dict) or not set(map(type, value)) | set(map(type, value.values())) <= {str}:
        raise TypeError("not a mapping of strings")
    return value


def _links(value: object) -> None:
    """Check the pages' links as recorded: {path: [[url, kind], ...]}, every type gathered in C."""
    if (
        not isinstance(value, dict)
        or not set(map(type, value)) <= {str}
        or not set(map(type, value.values())) <= {list}
    ):
        raise TypeError("not a mapping of links")
    pairs = list(chain.from_iterable(value.values()))
    if not set(map(type, pairs)) <= {list} or not set(map(len, pairs)) <= {2}:
        raise TypeError("not a list of links")
    if not set(map(type, chain.from_iterable(pairs))) <= {str}:
        raise TypeError("not a list of links")


def _scanned_record(value: object) -> dict[str, Any]:
    """The citation scan as recorded: {"head": sha, "hinted": [path, ...]}, or {} (none recorded)."""
    if value == {}:
        return {}
    if not isinstance(value, dict) or not isinstance(value.get("head"), str):
        raise TypeError("not a scan record")
    hinted = value.get("hinted")
    if not isinstance(hinted, list) or not all(isinstance(path, str) for path in hinted):
        raise TypeError("not a scan record")
    return {"head": value["head"], "hinted": hinted}


def _folders(recorded: object) -> list[str]:
    """The base's part folders as recorded (a site before parts recorded one folder, or none)."""
    if isinstance(recorded, str):
        return [recorded] if recorded else []
    return [str(folder) for folder in recorded] if isinstance(recorded, list) else []


def write_named_json(file: Path, data: object) -> str:
    """Write a work file the manifest names by digest (the home page's sections, the word counts); its digest."""
    raw = json.dumps(data, ensure_ascii=False).encode("utf-8")
    file.write_bytes(raw)
    return hashlib.sha256(raw).hexdigest()


def read_named_json(file: Path, digest: str | None) -> Any:
    """The JSON of a work file the manifest names, if its bytes have `digest` (None: not asked); raises
    ValueError for another file (edited, cut short, another build's), OSError for none."""
    raw = file.read_bytes()
    if digest is not None and hashlib.sha256(raw).hexdigest() != digest:
        raise ValueError(f"{file.name} is not the file the manifest names")
    return json.loads(raw)
