"""A warden hook in Python (componentize-py, WIT warden:plugin@0.3.0): counts events by kind
and logs the counts at the end of every turn. Config: none. See the logs with
`WARDEN_LOG=warden::plugin=info`. The counting is in logic.py."""

from typing import List, Tuple

from wit_world import exports
from wit_world.imports import host, types

import logic


class Observe(exports.Observe):
    """Exported as `warden:plugin/observe`. componentize-py makes one instance of it."""

    counts = logic.Counts()

    def init(self, config: List[Tuple[str, str]]) -> None:
        Observe.counts = logic.Counts()

    def on_event(self, event: types.Event) -> None:
        summary = Observe.counts.count(logic.kind_of(type(event).__name__))
        if summary is not None:
            host.log(types.LogLevel.INFO, summary)
