"""A warden tool plugin in Python (componentize-py, WIT warden:plugin@0.2.0): `count_lines`
counts the lines of a text file in the workspace.

Its [[plugins]] entry must grant `fs = "read"`: the workspace roots are then opened to it at
their own paths (the host adds them to the config as `roots`, newline-separated), and nothing
else is. Absolute paths and `..` are refused here; the host refuses denied files itself.
"""

import json
import os
from typing import List, Tuple

from componentize_py_types import Err
from wit_world import exports
from wit_world.imports import host, types


class Act(exports.Act):
    """Exported as `warden:plugin/act`. componentize-py makes one instance of it."""

    roots: List[str] = []

    def init(self, config: List[Tuple[str, str]]) -> None:
        values = dict(config)
        roots = [line for line in values.get("roots", "").splitlines() if line.strip()]
        if not roots:
            raise Err("no workspace roots in the config: grant `fs = \"read\"` in the [[plugins]] entry")
        Act.roots = roots

    def describe(self) -> List[types.ToolSpec]:
        schema = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
        return [types.ToolSpec("count_lines", "Count the lines of a text file in the workspace.", json.dumps(schema))]

    def call(self, name: str, arguments: str) -> types.ToolOutput:
        # Raising `Err(text)` answers the model with an error result. Any other exception is a
        # failure of the plugin: warden shows its type, message and where it was raised.
        if name != "count_lines":
            raise Err(f"unknown tool `{name}`")
        args = json.loads(arguments)
        path = args.get("path")
        if not isinstance(path, str) or path == "":
            raise Err("missing string argument `path`")
        if os.path.isabs(path) or ".." in path.split("/"):
            raise Err(f"{path}: give a path relative to the workspace root, without `..`")
        try:
            with open(os.path.join(Act.roots[0], path), encoding="utf-8", errors="replace") as file:
                lines = sum(1 for _ in file)
        except OSError as err:
            raise Err(f"{path}: {err.strerror or err}")
        host.log(types.LogLevel.DEBUG, f"counted {path}")
        return types.ToolOutput(f"{path}: {lines} lines")
