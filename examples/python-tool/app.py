"""find_todos, a warden tool plugin in Python (componentize-py, WIT warden:plugin@0.3.0): the
model asks for the TODO, FIXME and XXX lines of the workspace (or of one directory) and gets
them as `path:line: text`. The search is in logic.py; this file turns it into the WIT types."""

import json
from typing import List, Tuple

from componentize_py_types import Err
from wit_world import exports
from wit_world.imports import types

import logic

SCHEMA = {
    "type": "object",
    "properties": {"dir": {"type": "string", "description": "a directory relative to the workspace root (default: all of it)"}},
}


class Act(exports.Act):
    """Exported as `warden:plugin/act`. componentize-py makes one instance of it."""

    settings = None

    def init(self, config: List[Tuple[str, str]]) -> None:
        try:
            Act.settings = logic.Settings(dict(config))
        except ValueError as err:
            raise Err(str(err))

    def describe(self) -> List[types.ToolSpec]:
        markers = ", ".join(Act.settings.markers) if Act.settings else "TODO, FIXME, XXX"
        return [types.ToolSpec("find_todos", f"List the {markers} lines of the workspace's text files as path:line: text.", json.dumps(SCHEMA))]

    def call(self, name: str, arguments: str) -> types.ToolOutput:
        # Raising `Err(text)` answers the model with an error result.
        if name != "find_todos" or Act.settings is None:
            raise Err(f"unknown tool `{name}`")
        try:
            args = json.loads(arguments or "{}")
        except ValueError as err:
            raise Err(f"bad arguments: {err}")
        under = args.get("dir", "") if isinstance(args, dict) else ""
        if not isinstance(under, str):
            raise Err("argument `dir` must be a string")
        try:
            found, more = logic.find(Act.settings, under)
        except ValueError as err:
            raise Err(str(err))
        return types.ToolOutput(logic.answer(Act.settings, under, found, more))
