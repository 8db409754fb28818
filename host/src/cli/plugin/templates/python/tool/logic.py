"""The tool's logic, apart from the WIT glue in app.py so that `python3 -m unittest` checks it
without building the component: `count_lines` counts the lines of a workspace file.

Its [[plugins]] entry must grant `fs = "read"`: the workspace roots are then opened to it at
their own paths (the host adds them to the config as `roots`, newline-separated), and nothing
else is. Absolute paths, `..` and the deny globs (`.env`, `*.pem`, `*.key` and the entry's
`deny` config key, comma-separated) are refused.

Deny globs read as in the Rust SDK: a glob without `/` matches a name at any depth; one with
`/` matches the whole root-relative path; `*` and `?` never cross `/`, `**` as a whole
component crosses any number of directories, `[...]` is a class and `{a,b}` either; case is
ignored.
"""

import os
import re
from typing import Dict, List, Pattern, Tuple

DENY = [".env", "*.pem", "*.key"]


def workspace(config: Dict[str, str]) -> Tuple[str, List[str]]:
    """The primary root and the deny globs of `config`; ValueError says what is wrong."""
    roots = [line for line in config.get("roots", "").splitlines() if line.strip()]
    if not roots:
        raise ValueError("no workspace roots in the config")
    extra = [g.strip() for g in config.get("deny", "").replace("\n", ",").split(",") if g.strip()]
    return roots[0], DENY + extra


def glob_regex(glob: str) -> Pattern[str]:
    """The regular expression a deny glob stands for, over a root-relative path."""
    pattern = glob.lstrip("/") if "/" in glob else "**/" + glob
    out, i, braces = [], 0, 0
    while i < len(pattern):
        c = pattern[i]
        at_start = i == 0 or pattern[i - 1] == "/"
        if pattern.startswith("**/", i) and at_start:
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i) and at_start and i + 2 == len(pattern):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[" and "]" in pattern[i + 2 :]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1 : end].replace("\\", "\\\\")
            out.append("[^" + body[1:] + "]" if body.startswith("!") else "[" + body + "]")
            i = end + 1
        elif c == "{":
            out.append("(?:")
            braces += 1
            i += 1
        elif c == "}" and braces:
            out.append(")")
            braces -= 1
            i += 1
        elif c == "," and braces:
            out.append("|")
            i += 1
        else:
            out.append(re.escape(c))
            i += 1
    return re.compile("".join(out), re.IGNORECASE)


def denied(deny: List[str], relative: str) -> bool:
    """Whether root-relative `relative` is denied (any `.git` component always is)."""
    if any(p.lower() == ".git" for p in relative.split("/")):
        return True
    return any(glob_regex(glob).fullmatch(relative) for glob in deny)


def resolve(root: str, deny: List[str], path: str) -> Tuple[str, str]:
    """The full and the root-relative path of `path`; ValueError says why it is refused."""
    if path.startswith("/"):
        raise ValueError(f"{path}: absolute paths are refused; give a path relative to the workspace root")
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise ValueError(f"{path}: `..` is refused: the path must stay in the workspace")
    relative = "/".join(parts)
    if denied(deny, relative):
        raise ValueError(f"{path}: denied by the workspace's deny globs")
    return os.path.join(root, *parts), relative


def count_lines(text: str) -> int:
    """Lines of `text` (a last line without a newline counts)."""
    if text == "":
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)
