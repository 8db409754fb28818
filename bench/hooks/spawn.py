#!/usr/bin/env python3
"""The guard run as Claude Code runs a command hook: one process per call, started through
`/bin/sh -c COMMAND` in the project directory, the `PreToolUse` event as JSON on its standard
input. Prints the mean wall time per call in milliseconds.

    spawn.py COMMAND CALLS PROJECT_DIR
"""
import json
import subprocess
import sys
import time

command, calls, project = sys.argv[1], int(sys.argv[2]), sys.argv[3]
event = json.dumps({
    "session_id": "bench", "transcript_path": "/dev/null", "cwd": project,
    "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
    "tool_input": {"command": "ls -la"}, "tool_use_id": "c1",
}).encode()
start = time.perf_counter()
for _ in range(calls):
    done = subprocess.run(["/bin/sh", "-c", command], input=event, cwd=project,
                          capture_output=True, timeout=60)
    if done.returncode != 0:
        sys.exit(f"the guard exited with {done.returncode}: {done.stderr.decode()}")
print(f"{(time.perf_counter() - start) * 1000 / calls:.2f}")
