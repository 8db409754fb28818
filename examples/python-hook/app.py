"""tool-tally, a warden hook in Python (componentize-py, WIT warden:plugin@0.3.0): at the end of
every turn it logs which tools ran, failed or were denied, and warns when a turn made more tool
calls than `warn_after`. The tally is in logic.py; this file turns the WIT events into it."""

from typing import List, Tuple

from componentize_py_types import Err
from wit_world import exports
from wit_world.imports import host, types

import logic


class Observe(exports.Observe):
    """Exported as `warden:plugin/observe`. componentize-py makes one instance of it."""

    tally = logic.Tally(10)

    def init(self, config: List[Tuple[str, str]]) -> None:
        try:
            Observe.tally = logic.Tally(logic.warn_after(dict(config)))
        except ValueError as err:
            raise Err(str(err))

    def on_event(self, event: types.Event) -> None:
        kind = type(event).__name__
        if kind == "Event_ToolRan":
            Observe.tally.tool_ran(event.value.name, event.value.is_error)
        elif kind == "Event_ToolDecided":
            if logic.denied_action(type(event.value.action).__name__):
                Observe.tally.tool_denied(event.value.call.name)
        elif kind == "Event_TurnEnded":
            level, line = Observe.tally.turn_ended()
            host.log(types.LogLevel.WARN if level == "warn" else types.LogLevel.INFO, line)
