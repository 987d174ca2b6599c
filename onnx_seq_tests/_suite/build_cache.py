"""The build's memory of the tree it wrote, `.<root>.build/cache.json`, as one typed record.

    {"fingerprints": {"<case>": "<sha256 of its content>", ...},
     "folders": {"": <mtime_ns>, "sequence_optional": <mtime_ns>, ...},
     "key": "<build key, freshness.build_key>",
     "manifest_sha256": "<sha256 of the manifest.json it wrote>",
     "mtimes": [<mtime_ns of each listed file, in the manifest's sorted order>, ...],
     "sources": {"<sha256 of a case file>": ["<case>", ...], ...}}

Compact JSON with sorted keys. It is decoded and checked once (`from_json`), so the build and
freshness.py read typed fields, never raw dicts. Nothing here imports onnx.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from .._core.errors import CacheError, ManifestError
from .manifest import load_json


@dataclass(frozen=True)
class BuildCache:
    """What an incremental build knows of the tree whose manifest has `manifest_sha256`."""

    key: str  # freshness.build_key: the build's code, versions, empty-optional form
    manifest_sha256: str
    sources: dict[str, list[str]]  # case file sha256 -> the cases (and variants) it gave
    fingerprints: dict[str, str]  # case name -> compiling.fingerprint
    mtimes: list[int]  # mtime_ns of each file the manifest lists, in sorted path order
    folders: dict[str, int]  # every folder of the tree ('' for the root) -> mtime_ns

    @classmethod
    def from_json(cls, data: bytes, where: str) -> BuildCache:
        """The record in `data`; CacheError (one line, starting with `where`) when it is not
        valid JSON or any field is missing or of the wrong type."""
        try:
            value = load_json(data, where)
        except ManifestError as error:
            raise CacheError(str(error)) from None
        if not isinstance(value, dict):
            raise CacheError(f"{where}: not a build cache (a JSON object)")
        try:
            cache = cls(value["key"], value["manifest_sha256"], value["sources"],
                        value["fingerprints"], value["mtimes"], value["folders"])
        except KeyError as error:
            raise CacheError(f"{where}: no {error.args[0]!r}") from None
        problem = cache._problem()
        if problem:
            raise CacheError(f"{where}: {problem}")
        return cache

    def _problem(self) -> str | None:
        if not isinstance(self.key, str) or not isinstance(self.manifest_sha256, str):
            return "'key' and 'manifest_sha256' must be strings"
        if not (isinstance(self.sources, dict) and all(
                isinstance(names, list) and all(isinstance(n, str) for n in names)
                for names in self.sources.values())):
            return "'sources' must map file hashes to lists of case names"
        if not (isinstance(self.fingerprints, dict)
                and all(isinstance(f, str) for f in self.fingerprints.values())):
            return "'fingerprints' must map case names to strings"
        if not (isinstance(self.mtimes, list) and all(_is_int(m) for m in self.mtimes)):
            return "'mtimes' must be a list of integers"
        if not (isinstance(self.folders, dict) and all(_is_int(m)
                                                       for m in self.folders.values())):
            return "'folders' must map folders to integers"
        return None

    def to_json(self) -> bytes:
        """The bytes of cache.json: compact JSON, keys sorted."""
        return json.dumps({"key": self.key, "manifest_sha256": self.manifest_sha256,
                           "sources": self.sources, "fingerprints": self.fingerprints,
                           "mtimes": self.mtimes, "folders": self.folders},
                          sort_keys=True, separators=(",", ":")).encode()

    def belongs_to(self, key: str, manifest_bytes: bytes) -> bool:
        """Whether this cache was written by a build with `key` of the tree whose manifest has
        these bytes."""
        return (self.key == key
                and self.manifest_sha256 == hashlib.sha256(manifest_bytes).hexdigest())


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
