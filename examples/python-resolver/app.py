"""notebook-resolver, a warden resolver in Python (componentize-py, WIT warden:plugin@0.3.0):
serves `@path` references and the model's file tools from the workspace, with Jupyter
notebooks shown as their cells. What it serves is decided in logic.py; this file turns it into
the WIT types."""

from typing import List, Tuple

from componentize_py_types import Err
from wit_world import exports
from wit_world.imports import types

import logic

ERRORS = {
    "out-of-scope": types.ResolveError_OutOfScope,
    "not-found": types.ResolveError_NotFound,
    "binary": types.ResolveError_Binary,
    "io": types.ResolveError_Io,
}


def refused(err: logic.Refused) -> Err:
    """The WIT error for `err`: raising `Err(value)` returns the `err` case of the result."""
    return Err(ERRORS.get(err.kind, types.ResolveError_Io)(str(err)))


class Resolve(exports.Resolve):
    """Exported as `warden:plugin/resolve`. componentize-py makes one instance of it."""

    root = ""
    options = logic.Options({})

    def init(self, config: List[Tuple[str, str]]) -> None:
        try:
            Resolve.root = logic.root_of(dict(config))
            Resolve.options = logic.Options(dict(config))
        except ValueError as err:
            raise Err(str(err))

    def resolve(self, request: types.FileRef) -> types.Resolved:
        try:
            text = logic.read(Resolve.root, request.path, Resolve.options)
        except logic.Refused as err:
            raise refused(err)
        content, truncated = logic.cap(text, request.max_bytes)
        return types.Resolved(
            request.path, types.EntryKind.FILE, content.encode("utf-8"), len(text.encode("utf-8")), truncated
        )

    def read_file(self, path: str, offset: int, limit: int, max_bytes: int) -> types.FileChunk:
        try:
            part = logic.chunk(logic.read(Resolve.root, path, Resolve.options), offset, limit, max_bytes)
        except logic.Refused as err:
            raise refused(err)
        return types.FileChunk(
            path,
            str(part["content"]).encode("utf-8"),
            int(part["first_line"]),  # type: ignore[call-overload]
            int(part["lines"]),  # type: ignore[call-overload]
            int(part["total_lines"]),  # type: ignore[call-overload]
            bool(part["more"]),
        )

    def list_files(self, path: str, max_entries: int) -> types.Listing:
        try:
            entries, truncated = logic.listing(Resolve.root, path, max_entries)
        except logic.Refused as err:
            raise refused(err)
        return types.Listing(path, entries, truncated)
