"""A warden interceptor in Python (componentize-py, WIT warden:plugin@0.3.0). The decisions
are in logic.py; this file turns them into the WIT types."""

from typing import List, Tuple

from componentize_py_types import Err
from wit_world import exports
from wit_world.imports import prompts, types

import logic


class Intercept(exports.Intercept):
    """Exported as `warden:plugin/intercept`. componentize-py makes one instance of it."""

    word = ""
    context = ""

    def init(self, config: List[Tuple[str, str]]) -> None:
        # Raising `Err(text)` refuses the config with that message.
        try:
            Intercept.word, Intercept.context = logic.settings(dict(config))
        except ValueError as err:
            raise Err(str(err))

    def on_prompt_submit(self, prompt: prompts.Prompt) -> types.PromptAction:
        # The prompt is lent for this call: ask it for what you need (`text()`, `find()`, ...).
        extra = logic.decide(Intercept.word, Intercept.context, prompt.text())
        if extra is None:
            return types.PromptAction_Continue()
        return types.PromptAction_ContinueWith([types.Item_System(extra)])

    def pre_llm_request(self, request: types.RequestInfo) -> List[types.Item]:
        return []

    def on_turn_end(self, turn: types.TurnInfo) -> types.TurnEndAction:
        return types.TurnEndAction_Finish()

    def pre_tool_call(self, call: types.ToolCall) -> types.ToolAction:
        return types.ToolAction_Allow()

    def post_tool_call(self, call: types.ToolCall, output: types.ToolResultItem) -> List[types.Item]:
        return []

    def on_compaction(self, info: types.CompactionInfo) -> List[types.Item]:
        return []
