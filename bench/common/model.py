#!/usr/bin/env python3
"""A scripted model on loopback for the benchmarks that time `warden run` turns: the first
request of a turn gets CALLS (default 1) `shell` calls running COMMAND, the request that
carries their results a text answer (an empty command: every request gets the text answer).
Speaks OpenAI Chat Completions, not streamed. Prints its port, then serves until killed.

    model.py COMMAND [CALLS]
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

COMMAND = sys.argv[1]
CALLS = int(sys.argv[2]) if len(sys.argv) > 2 else 1


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        answered = any(m.get("role") == "tool" for m in body.get("messages", [])[-1:])
        if answered or not COMMAND:
            message = {"role": "assistant", "content": "done"}
            finish = "stop"
        else:
            calls = [{
                "id": f"c{i + 1}",
                "type": "function",
                "function": {"name": "shell",
                             "arguments": json.dumps({"command": COMMAND, "timeout_s": 600})},
            } for i in range(CALLS)]
            message = {"role": "assistant", "content": "", "tool_calls": calls}
            finish = "tool_calls"
        reply = json.dumps({
            "id": "x", "object": "chat.completion", "model": "bench",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)


server = HTTPServer(("127.0.0.1", 0), Handler)
print(server.server_port, flush=True)
server.serve_forever()
