"""The hook's logic, apart from the WIT glue in app.py so that `python3 -m unittest` checks it
without building the component: count events by kind; at the end of every turn, a summary.
"""

from typing import Dict, Optional


class Counts:
    def __init__(self) -> None:
        self.counts: Dict[str, int] = {}

    def count(self, kind: str) -> Optional[str]:
        """Count one event of `kind`; the summary line when it ends a turn."""
        self.counts[kind] = self.counts.get(kind, 0) + 1
        if kind != "turn-ended":
            return None
        parts = [f"{k}={n}" for k, n in sorted(self.counts.items())]
        return "event counts: " + " ".join(parts)


def kind_of(class_name: str) -> str:
    """`Event_PromptSubmitted` (the binding's class of a WIT event case) -> `prompt-submitted`."""
    name = class_name.split("_", 1)[-1]
    return "".join("-" + c.lower() if c.isupper() else c for c in name).lstrip("-")
