#!/usr/bin/env python3
"""A `PreToolUse` guard in the shape of Claude Code's documentation: the call as JSON on
standard input; `rm -rf` in a `Bash` command is blocked with exit 2 and the reason on standard
error; anything else exits 0 with no output (the call goes on)."""
import json
import sys

event = json.load(sys.stdin)
command = event.get("tool_input", {}).get("command", "")
if "rm -rf" in command:
    print("Blocked: rm -rf is not allowed here", file=sys.stderr)
    sys.exit(2)
sys.exit(0)
