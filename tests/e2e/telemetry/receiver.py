"""A test collector: OTLP/HTTP on 127.0.0.1, bodies decoded with the official protobuf
definitions (PyPI opentelemetry-proto). Prints its port, then appends one JSON line per request
to the file named on the command line: {"path": ..., "body": <the decoded request>} with trace
and span ids in hex.

A body sent as `application/json` (OTLP/JSON) is parsed into the same proto classes with
`google.protobuf.json_format.Parse`, after its trace and span ids, which OTLP/JSON writes in
hex where the proto3 JSON mapping has base64, are turned into base64; anything else is decoded
as protobuf. A body that does not parse is answered 400 and recorded as {"path": ...,
"error": ...}.

Modes: ok (200), refuse (503 to every request), hang (never answers).
"""

import base64
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf.json_format import MessageToDict, Parse
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


def base64_ids(value):
    """OTLP/JSON's hex ids as the proto3 JSON mapping's base64 (bad hex raises)."""
    if isinstance(value, dict):
        return {
            k: (
                base64.b64encode(bytes.fromhex(v)).decode()
                if k in IDS and isinstance(v, str)
                else base64_ids(v)
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [base64_ids(v) for v in value]
    return value


def decode(kind, content_type, body):
    message = kind()
    if (content_type or "").startswith("application/json"):
        Parse(json.dumps(base64_ids(json.loads(body))), message)
    else:
        message.ParseFromString(body)
    return message


def record(entry):
    with lock, open(out_path, "a") as out:
        out.write(json.dumps(entry) + "\n")


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
        content_type = self.headers.get("Content-Type")
        try:
            message = decode(kind, content_type, body)
        except Exception as error:  # noqa: BLE001 - any undecodable body is the finding
            record({"path": self.path, "content_type": content_type, "error": repr(error)})
            self.send_response(400)
            self.end_headers()
            return
        record(
            {
                "path": self.path,
                "content_type": content_type,
                "authorization": self.headers.get("Authorization"),
                "body": hex_ids(MessageToDict(message)),
            }
        )
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
