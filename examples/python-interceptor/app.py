"""The `keyword-context` sample in Python (componentize-py, WIT warden:plugin@0.2.0).

Config: `word` (required), `context` (the text to add; default names the word), `mode`
(`add`, the default, appends a system item with the context; `cancel` cancels the prompt with
the context as the reason).
"""

from typing import List, Tuple

from componentize_py_types import Err
from wit_world import exports
from wit_world.imports import host, types


class Intercept(exports.Intercept):
    """Exported as `warden:plugin/intercept`. componentize-py makes one instance of it."""

    word = ""
    context = ""
    cancel = False

    def init(self, config: List[Tuple[str, str]]) -> None:
        values = dict(config)
        word = values.get("word")
        if word is None:
            raise Err("missing config key `word`")
        if word == "":
            raise Err("config key `word` must not be empty")
        mode = values.get("mode", "add")
        if mode not in ("add", "cancel"):
            raise Err(f"config key `mode`: expected add or cancel, got {mode!r}")
        Intercept.word = word
        Intercept.context = values.get("context", f"The prompt mentions {word}.")
        Intercept.cancel = mode == "cancel"

    def on_prompt_submit(self, prompt: types.SubmittedPrompt) -> types.PromptAction:
        if Intercept.word and Intercept.word in prompt.text:
            host.log(types.LogLevel.DEBUG, f"found {Intercept.word!r}")
            if Intercept.cancel:
                return types.PromptAction_Cancel(Intercept.context)
            return types.PromptAction_ContinueWith([types.Item_System(Intercept.context)])
        return types.PromptAction_Continue()

    def pre_llm_request(self, request: types.RequestInfo) -> List[types.Item]:
        return []

    def on_turn_end(self, turn: types.TurnInfo) -> types.TurnEndAction:
        return types.TurnEndAction_Finish()

    def pre_tool_call(self, call: types.ToolCall) -> types.ToolAction:
        return types.ToolAction_Allow()

    def post_tool_call(self, call: types.ToolCall, output: types.ToolResultItem) -> List[types.Item]:
        return []
