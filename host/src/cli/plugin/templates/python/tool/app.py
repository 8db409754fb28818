"""A warden tool plugin in Python (componentize-py, WIT warden:plugin@0.3.0): `count_lines`
counts the lines of a text file in the workspace. The checks and the counting are in logic.py;
this file turns them into the WIT types."""

import json
from typing import List, Tuple

from componentize_py_types import Err
from wit_world import exports
from wit_world.imports import types

import logic

SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}


class Act(exports.Act):
    """Exported as `warden:plugin/act`. componentize-py makes one instance of it."""

    root = ""
    deny: List[str] = []

    def init(self, config: List[Tuple[str, str]]) -> None:
        try:
            Act.root, Act.deny = logic.workspace(dict(config))
        except ValueError as err:
            raise Err(str(err))

    def describe(self) -> List[types.ToolSpec]:
        return [types.ToolSpec("count_lines", "Count the lines of a text file in the workspace.", json.dumps(SCHEMA))]

    def call(self, name: str, arguments: str) -> types.ToolOutput:
        # Raising `Err(text)` answers the model with an error result. Any other exception is a
        # failure of the plugin: warden shows its type, message and where it was raised.
        if name != "count_lines":
            raise Err(f"unknown tool `{name}`")
        try:
            args = json.loads(arguments)
        except ValueError as err:
            raise Err(f"bad arguments: {err}")
        path = args.get("path") if isinstance(args, dict) else None
        if not isinstance(path, str):
            raise Err("missing string argument `path`")
        try:
            full, relative = logic.resolve(Act.root, Act.deny, path)
        except ValueError as err:
            raise Err(str(err))
        try:
            with open(full, encoding="utf-8") as file:
                text = file.read()
        except (OSError, UnicodeDecodeError) as err:
            raise Err(f"{path}: {getattr(err, 'strerror', None) or err}")
        return types.ToolOutput(f"{relative}: {logic.count_lines(text)} lines")
