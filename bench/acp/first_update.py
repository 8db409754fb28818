#!/usr/bin/env python3
"""How soon an editor sees something after it sends `session/prompt` to `warden acp`.

Speaks raw newline-delimited JSON-RPC to `warden acp` over pipes (as an editor does), with the
offline echo provider in a fresh workspace and state directory. For each of ROUNDS prompts it
records, from the moment the request is written:

  first   the first `session/update` of that session (the goal: within 10 ms);
  answer  the `session/prompt` response (the whole echo turn, committed).

Prints the median, 95th percentile and maximum of each, in milliseconds, and one JSON line.

    python3 bench/acp/first_update.py [path/to/warden] [rounds]
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    warden = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "../../target/debug/warden"))
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    with tempfile.TemporaryDirectory() as tmp:
        workspace = os.path.join(tmp, "proj")
        os.makedirs(os.path.join(workspace, ".git"))
        with open(os.path.join(workspace, "a.txt"), "w") as f:
            f.write("hello\n")
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": os.path.join(tmp, "home"),
            "XDG_CONFIG_HOME": os.path.join(tmp, "config"),
            "WARDEN_HOME": os.path.join(tmp, "state"),
            "WARDEN_MANAGED_CONFIG": os.path.join(tmp, "managed.toml"),
        }
        proc = subprocess.Popen(
            [warden, "acp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=workspace,
        )
        next_id = [0]

        def send(method, params):
            next_id[0] += 1
            line = json.dumps({"jsonrpc": "2.0", "id": next_id[0], "method": method, "params": params})
            proc.stdin.write(line.encode() + b"\n")
            proc.stdin.flush()
            return next_id[0], time.perf_counter()

        def read():
            line = proc.stdout.readline()
            if not line:
                raise SystemExit("warden acp stopped")
            return json.loads(line), time.perf_counter()

        def answer(wanted):
            while True:
                message, at = read()
                if message.get("id") == wanted and "method" not in message:
                    return message, at

        rid, _ = send("initialize", {"protocolVersion": 1})
        answer(rid)
        rid, _ = send("session/new", {"cwd": workspace, "mcpServers": []})
        session = answer(rid)[0]["result"]["sessionId"]
        first, whole = [], []
        for n in range(rounds):
            prompt = [{"type": "text", "text": f"round {n}: what is in"},
                      {"type": "resource_link", "uri": f"file://{workspace}/a.txt", "name": "a.txt"}]
            rid, sent = send("session/prompt", {"sessionId": session, "prompt": prompt})
            seen_first = None
            while True:
                message, at = read()
                if message.get("method") == "session/update" and seen_first is None:
                    seen_first = at
                if message.get("id") == rid and "method" not in message:
                    if "error" in message:
                        raise SystemExit(f"prompt failed: {message}")
                    whole.append((at - sent) * 1000)
                    break
            first.append((seen_first - sent) * 1000)
        proc.stdin.close()
        proc.wait(timeout=30)

    def line(name, values):
        values = sorted(values)
        p95 = values[int(0.95 * (len(values) - 1))]
        return f"{name:7} median {statistics.median(values):7.2f} ms   p95 {p95:7.2f} ms   max {values[-1]:7.2f} ms"

    print(f"warden acp, echo provider, {rounds} prompts (one resource link each)")
    print(line("first", first))
    print(line("answer", whole))
    print(json.dumps({
        "rounds": rounds,
        "first_median_ms": round(statistics.median(first), 3),
        "first_p95_ms": round(sorted(first)[int(0.95 * (len(first) - 1))], 3),
        "first_max_ms": round(max(first), 3),
        "answer_median_ms": round(statistics.median(whole), 3),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
