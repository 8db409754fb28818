"""A test collector: OTLP/HTTP on 127.0.0.1, bodies decoded with the official protobuf
definitions (PyPI opentelemetry-proto). Prints its port, then appends one JSON line per request
to the file named on the command line: {"path": ..., "body": <the decoded request>} with trace
and span ids in hex.

Modes: ok (200), refuse (503 to every request), hang (never answers).
"""

import base64
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

KINDS = {
    "/v1/logs": ExportLogsServiceRequest,
    "/v1/traces": ExportTraceServiceRequest,
    "/v1/metrics": ExportMetricsServiceRequest,
}
IDS = {"traceId", "spanId", "parentSpanId"}
out_path, mode = sys.argv[1], sys.argv[2]
lock = threading.Lock()


def hex_ids(value):
    if isinstance(value, dict):
        return {
            k: (base64.b64decode(v).hex() if k in IDS and isinstance(v, str) else hex_ids(v))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [hex_ids(v) for v in value]
    return value


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if mode == "hang":
            time.sleep(3600)
            return
        if mode == "refuse":
            self.send_response(503)
            self.end_headers()
            return
        kind = KINDS.get(self.path)
        if kind is None:
            self.send_response(404)
            self.end_headers()
            return
        message = kind()
        message.ParseFromString(body)
        line = json.dumps(
            {
                "path": self.path,
                "content_type": self.headers.get("Content-Type"),
                "authorization": self.headers.get("Authorization"),
                "body": hex_ids(MessageToDict(message)),
            }
        )
        with lock, open(out_path, "a") as out:
            out.write(line + "\n")
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
