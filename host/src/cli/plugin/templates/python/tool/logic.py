"""The tool's logic, apart from the WIT glue in app.py so that `python3 -m unittest` checks it
without building the component: `count_lines` counts the lines of a workspace file.

Its [[plugins]] entry must grant `fs = "read"`: the workspace roots are then opened to it at
their own paths (the host adds them to the config as `roots`, newline-separated), and nothing
else is. Absolute paths, `..` and the deny globs (`.env`, `*.pem`, `*.key` and the entry's
`deny` config key, comma-separated) are refused.
"""

import fnmatch
import os
from typing import Dict, List, Tuple

DENY = [".env", "*.pem", "*.key"]


def workspace(config: Dict[str, str]) -> Tuple[str, List[str]]:
    """The primary root and the deny globs of `config`; ValueError says what is wrong."""
    roots = [line for line in config.get("roots", "").splitlines() if line.strip()]
    if not roots:
        raise ValueError("no workspace roots in the config")
    extra = [g.strip() for g in config.get("deny", "").replace("\n", ",").split(",") if g.strip()]
    return roots[0], DENY + extra


def resolve(root: str, deny: List[str], path: str) -> Tuple[str, str]:
    """The full and the root-relative path of `path`; ValueError says why it is refused."""
    if path.startswith("/"):
        raise ValueError(f"{path}: absolute paths are refused; give a path relative to the workspace root")
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise ValueError(f"{path}: `..` is refused: the path must stay in the workspace")
    relative = "/".join(parts)
    lowered = relative.lower()
    for glob in deny:
        glob = glob.lower()
        target = lowered if "/" in glob else (parts[-1].lower() if parts else "")
        if any(p.lower() == ".git" for p in parts) or fnmatch.fnmatchcase(target, glob.lstrip("/")):
            raise ValueError(f"{path}: denied by the workspace's deny globs")
    return os.path.join(root, *parts), relative


def count_lines(text: str) -> int:
    """Lines of `text` (a last line without a newline counts)."""
    if text == "":
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)
