"""A tool guard in Python (componentize-py, WIT warden:plugin@0.2.0).

Config (the `config` table of the plugin's `[[plugins]]` entry):
- `deny`: comma-separated rules `TOOL:PREFIX` (or just `TOOL`): a call of `TOOL` (`*` for any
  tool) whose `path` argument starts with `PREFIX` is denied; a rule without a prefix denies
  every call of the tool. `deny = "write_file:secrets/,shell"`.
- `rewrite`: comma-separated `FROM=>TO` path prefixes: a call whose `path` argument starts with
  `FROM` runs with `TO` in its place. `rewrite = "old/=>new/"`.
- `note`: text of a system item added after every failed tool call (none by default).

Paths are matched as the model wrote them (after dropping a leading `./`): this is a sample,
not a sandbox. The Rust `tool-guard` sample resolves paths against the workspace roots.
"""

import json
from typing import List, Optional, Tuple

from componentize_py_types import Err
from wit_world import exports
from wit_world.imports import host, types


def split_list(text: str) -> List[str]:
    return [part.strip() for part in text.replace("\n", ",").split(",") if part.strip()]


class Intercept(exports.Intercept):
    """Exported as `warden:plugin/intercept`. componentize-py makes one instance of it."""

    deny: List[Tuple[str, Optional[str]]] = []
    rewrite: List[Tuple[str, str]] = []
    note = ""

    def init(self, config: List[Tuple[str, str]]) -> None:
        values = dict(config)
        deny = []
        for rule in split_list(values.get("deny", "")):
            tool, _, prefix = rule.partition(":")
            if tool.strip() == "":
                raise Err(f"deny rule {rule!r}: no tool name")
            deny.append((tool.strip(), prefix.strip() or None))
        rewrite = []
        for rule in split_list(values.get("rewrite", "")):
            source, arrow, target = rule.partition("=>")
            if not arrow or source.strip() == "":
                raise Err(f"rewrite rule {rule!r}: expected FROM=>TO")
            rewrite.append((source.strip(), target.strip()))
        Intercept.deny = deny
        Intercept.rewrite = rewrite
        Intercept.note = values.get("note", "")

    def pre_tool_call(self, call: types.ToolCall) -> types.ToolAction:
        try:
            args = json.loads(call.arguments)
        except ValueError:
            return types.ToolAction_Allow()
        path = args.get("path") if isinstance(args, dict) else None
        if isinstance(path, str):
            path = path[2:] if path.startswith("./") else path
        for tool, prefix in Intercept.deny:
            if tool not in ("*", call.name):
                continue
            if prefix is None or (isinstance(path, str) and path.startswith(prefix)):
                reason = f"tool-guard: `{call.name}` on `{path}` is denied" if path else f"tool-guard: `{call.name}` is denied"
                host.log(types.LogLevel.INFO, reason)
                return types.ToolAction_Deny(reason)
        if isinstance(path, str):
            for source, target in Intercept.rewrite:
                if path.startswith(source):
                    args["path"] = target + path[len(source):]
                    return types.ToolAction_Rewrite(json.dumps(args))
        return types.ToolAction_Allow()

    def post_tool_call(self, call: types.ToolCall, output: types.ToolResultItem) -> List[types.Item]:
        if output.is_error and Intercept.note:
            return [types.Item_System(Intercept.note)]
        return []

    def on_prompt_submit(self, prompt: types.SubmittedPrompt) -> types.PromptAction:
        return types.PromptAction_Continue()

    def pre_llm_request(self, request: types.RequestInfo) -> List[types.Item]:
        return []

    def on_turn_end(self, turn: types.TurnInfo) -> types.TurnEndAction:
        return types.TurnEndAction_Finish()
