"""notebook-resolver's logic, apart from the WIT glue in app.py so that `python3 -m unittest`
checks it without building the component: serve `@path` references and the model's file tools
from the workspace, which the plugin sees read-only, with Jupyter notebooks (`.ipynb`) shown as
their cells rather than as JSON: each cell's source under a `# [n] code` or `# [n] markdown`
line, and, with `outputs = "true"`, the text a code cell printed (its first `output_lines`
lines). A notebook that is not valid JSON is served as it is. Every other file is served as
it is. warden applies its own deny globs before a path reaches the resolver.

Config: `roots` (added by warden: the workspace roots, one per line; the first is primary),
`outputs` (`true` or `false`, default `false`), `output_lines` (default 20).
"""

import json
import os
from typing import Dict, List, Tuple


class Options:
    """How notebooks are shown."""

    def __init__(self, config: Dict[str, str]) -> None:
        """ValueError says what is wrong with `config`."""
        outputs = config.get("outputs", "false").strip().lower()
        if outputs not in ("true", "false"):
            raise ValueError(f"config key `outputs` must be true or false, not {outputs!r}")
        self.outputs = outputs == "true"
        lines = config.get("output_lines", "20").strip()
        if not lines.isdigit():
            raise ValueError(f"config key `output_lines` must be a whole number, not {lines!r}")
        self.output_lines = int(lines)


def source_of(value: object) -> str:
    """A notebook field that is a string or a list of strings, as one string."""
    if isinstance(value, list):
        return "".join(str(part) for part in value)
    return str(value) if value is not None else ""


def render_notebook(text: str, options: Options) -> str:
    """The cells of notebook `text`, or `text` itself when it is not a notebook."""
    try:
        notebook = json.loads(text)
    except ValueError:
        return text
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        return text
    out: List[str] = []
    for n, cell in enumerate(cells, 1):
        if not isinstance(cell, dict):
            continue
        kind = str(cell.get("cell_type", "code"))
        out.append(f"# [{n}] {kind}")
        out.append(source_of(cell.get("source")).rstrip("\n"))
        if options.outputs and kind == "code":
            printed = "".join(
                source_of(o.get("text"))
                for o in cell.get("outputs") or []
                if isinstance(o, dict) and o.get("output_type") == "stream"
            )
            lines = printed.splitlines()
            if lines:
                kept = lines[: options.output_lines]
                more = len(lines) - len(kept)
                out.append("# output")
                out.extend(kept)
                if more:
                    out.append(f"# ... {more} more output lines")
        out.append("")
    return "\n".join(out)


class Refused(Exception):
    """Why a path is not served; `kind` names the WIT `resolve-error` case."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def root_of(config: Dict[str, str]) -> str:
    roots = config.get("roots")
    if roots is None:
        raise ValueError("missing config key `roots`")
    lines = roots.splitlines()
    if not lines:
        raise ValueError("config key `roots` is empty")
    return lines[0]


def locate(root: str, path: str) -> str:
    """`path` under the root, or Refused("out-of-scope")."""
    parts = path.split("/")
    if path.startswith("/") or any(p == ".." for p in parts):
        raise Refused("out-of-scope", f"{path} is outside the workspace")
    return os.path.join(root, *[p for p in parts if p not in ("", ".")])


def read(root: str, path: str, options: Options) -> str:
    """The text served for `path`: a notebook as its cells, any other file as it is."""
    text = read_text(root, path)
    return render_notebook(text, options) if path.lower().endswith(".ipynb") else text


def read_text(root: str, path: str) -> str:
    full = locate(root, path)
    try:
        with open(full, "rb") as file:
            data = file.read()
    except FileNotFoundError:
        raise Refused("not-found", f"{path} not found")
    except OSError as err:
        raise Refused("io", f"{path}: {err.strerror or err}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused("binary", f"{path} is not text")


def cap(text: str, max_bytes: int) -> Tuple[str, bool]:
    """`text` cut to at most `max_bytes` bytes at a character boundary, and whether it was."""
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text, False
    kept = data[:max_bytes].decode("utf-8", errors="ignore")
    return f"{kept}\n[...truncated, {len(data)} bytes total]", True


def lines_of(text: str) -> List[str]:
    """The lines of `text`: a last line without a newline counts, `\\r\\n` ends a line too."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def chunk(text: str, offset: int, limit: int, max_bytes: int) -> Dict[str, object]:
    """`limit` lines from 1-based line `offset` (0: from the start), capped at `max_bytes`."""
    lines = lines_of(text)
    first = max(offset, 1)
    start = min(first - 1, len(lines))
    end = min(start + limit, len(lines))
    content, _ = cap("\n".join(lines[start:end]), max_bytes)
    return {
        "content": content,
        "first_line": first,
        "lines": end - start,
        "total_lines": len(lines),
        "more": end < len(lines),
    }


def listing(root: str, path: str, max_entries: int) -> Tuple[List[str], bool]:
    directory = locate(root, path)
    try:
        names = os.listdir(directory)
    except OSError as err:
        raise Refused("not-found", f"{path}: {err.strerror or err}")
    entries = sorted(n + "/" if os.path.isdir(os.path.join(directory, n)) else n for n in names)
    return entries[:max_entries], len(entries) > max_entries
