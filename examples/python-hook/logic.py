"""tool-tally's logic, apart from the WIT glue in app.py so that `python3 -m unittest` checks it
without building the component: per turn, which tools ran, which failed and which a plugin or
the person denied; at the turn's end, one line, a warning when the turn made more calls than
`warn_after`.
"""

from typing import Dict, List, Optional, Tuple


def warn_after(config: Dict[str, str]) -> int:
    """The `warn_after` of `config` (default 10); ValueError says what is wrong."""
    text = config.get("warn_after", "10").strip()
    if not text.isdigit() or int(text) == 0:
        raise ValueError(f"config key `warn_after` must be a positive whole number, not {text!r}")
    return int(text)


def listed(counts: Dict[str, int]) -> str:
    """`read_file 2, shell 1`: names in order, each with its count."""
    return ", ".join(f"{name} {n}" for name, n in sorted(counts.items()))


class Tally:
    """What the tools did during one turn."""

    def __init__(self, warn_after: int) -> None:
        self.warn_after = warn_after
        self.ran: Dict[str, int] = {}
        self.failed: Dict[str, int] = {}
        self.denied: Dict[str, int] = {}

    def tool_ran(self, name: str, is_error: bool) -> None:
        self.ran[name] = self.ran.get(name, 0) + 1
        if is_error:
            self.failed[name] = self.failed.get(name, 0) + 1

    def tool_denied(self, name: str) -> None:
        self.denied[name] = self.denied.get(name, 0) + 1

    def turn_ended(self) -> Tuple[str, str]:
        """The level (`info` or `warn`) and the line for the turn that ended; starts afresh."""
        calls = sum(self.ran.values())
        parts: List[str] = []
        if calls == 0:
            parts.append("tools: none ran")
        else:
            parts.append(f"tools: {calls} ran ({listed(self.ran)})")
        if self.failed:
            parts.append(f"{sum(self.failed.values())} failed ({listed(self.failed)})")
        if self.denied:
            parts.append(f"{sum(self.denied.values())} denied ({listed(self.denied)})")
        level = "info"
        if calls > self.warn_after:
            level = "warn"
            parts.append(f"more than warn_after = {self.warn_after}")
        self.ran, self.failed, self.denied = {}, {}, {}
        return level, "; ".join(parts)


def denied_action(action_class: str) -> Optional[bool]:
    """Whether a `tool-decided` action (the binding's class name) is a denial."""
    return action_class.endswith("_Deny")
