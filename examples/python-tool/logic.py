"""find_todos's logic, apart from the WIT glue in app.py so that `python3 -m unittest` checks it
without building the component: the TODO, FIXME and XXX lines of the workspace's text files,
as `path:line: text`, skipping what the deny globs cover.

Its [[plugins]] entry must grant `fs = "read"`: the workspace roots are then opened to it at
their own paths (the host adds them to the config as `roots`, newline-separated), and nothing
else is. Config: `markers` (comma-separated, default `TODO,FIXME,XXX`), `max_results` (default
50), `deny` (comma-separated globs added to `.env`, `*.pem`, `*.key`; read as the Rust SDK
reads them: a glob without `/` matches a name at any depth, `*` stays within a name, `**`
crosses directories).
"""

import os
import re
from typing import Dict, List, Pattern, Tuple

DENY = [".env", "*.pem", "*.key"]
MAX_FILE_BYTES = 1 << 20


class Settings:
    def __init__(self, config: Dict[str, str]) -> None:
        """ValueError says what is wrong with `config`."""
        roots = [line for line in config.get("roots", "").splitlines() if line.strip()]
        if not roots:
            raise ValueError("no workspace roots in the config (grant `fs = \"read\"`)")
        self.root = roots[0]
        self.deny = DENY + split(config.get("deny", ""))
        self.markers = split(config.get("markers", "TODO,FIXME,XXX"))
        if not self.markers:
            raise ValueError("config key `markers` names no marker")
        text = config.get("max_results", "50").strip()
        if not text.isdigit() or int(text) == 0:
            raise ValueError(f"config key `max_results` must be a positive whole number, not {text!r}")
        self.max_results = int(text)
        words = "|".join(re.escape(m) for m in self.markers)
        self.pattern = re.compile(rf"\b({words})\b")


def split(text: str) -> List[str]:
    return [part.strip() for part in text.replace("\n", ",").split(",") if part.strip()]


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


def relative_dir(path: str) -> str:
    """`path` as a root-relative directory (`""` for the root); ValueError if it leaves it."""
    if path.startswith("/"):
        raise ValueError(f"{path}: absolute paths are refused; give a path relative to the workspace root")
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise ValueError(f"{path}: `..` is refused: the path must stay in the workspace")
    return "/".join(parts)


def find(settings: Settings, under: str) -> Tuple[List[str], bool]:
    """The marked lines under `under` (root-relative), a directory's files (by name) before its
    subdirectories, and whether there were more than `max_results`."""
    start = relative_dir(under)
    if start and denied(settings.deny, start):
        raise ValueError(f"{under}: denied by the workspace's deny globs")
    top = os.path.join(settings.root, start) if start else settings.root
    if not os.path.isdir(top):
        raise ValueError(f"{under}: not a directory of the workspace")
    found: List[str] = []
    for directory, dirs, files in os.walk(top):
        rel_dir = os.path.relpath(directory, settings.root).replace(os.sep, "/")
        rel_dir = "" if rel_dir == "." else rel_dir
        dirs[:] = sorted(d for d in dirs if not denied(settings.deny, join(rel_dir, d)))
        for name in sorted(files):
            relative = join(rel_dir, name)
            if denied(settings.deny, relative):
                continue
            for number, line in marked_lines(os.path.join(directory, name), settings.pattern):
                if len(found) == settings.max_results:
                    return found, True
                found.append(f"{relative}:{number}: {line}")
    return found, False


def join(directory: str, name: str) -> str:
    return f"{directory}/{name}" if directory else name


def marked_lines(path: str, pattern: Pattern[str]) -> List[Tuple[int, str]]:
    """The lines of the text file at `path` that hold a marker (none for a binary or big file)."""
    try:
        if os.path.getsize(path) > MAX_FILE_BYTES:
            return []
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except (OSError, UnicodeDecodeError):
        return []
    return [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1) if pattern.search(line)]


def answer(settings: Settings, under: str, found: List[str], more: bool) -> str:
    """What the model is told."""
    where = under or "the workspace"
    if not found:
        return f"no {', '.join(settings.markers)} in {where}"
    tail = [f"(stopped at max_results = {settings.max_results})"] if more else []
    return "\n".join(found + tail)
