#!/usr/bin/env python3
"""An ACP client driver written with the PyPI Agent Client Protocol SDK (`agent-client-protocol`).

Usage: python3 client.py SCENARIO.json

It spawns the scenario's `command` (with `env` merged over this process's environment, in
`cwd`; a relative `cwd` is taken from the scenario file's directory), connects to it over stdio
with the SDK's client connection (`acp.connect_to_agent`, a `ClientSideConnection`), runs the
scenario's steps in order, closes the agent's stdin, waits for the agent to exit (killing it
after 5 s) and prints one JSON object on stdout:
    {results, updates, permission_requests, stderr, exit_code}
`updates` and `permission_requests` hold the raw JSON-RPC params as they arrived on the wire.
`exit_code` is the agent's exit status, or minus the signal number when a signal ended it.
The driver exits 0 unless the scenario's `timeout_ms` elapsed (then 1, with a final
`{"op": "timeout", "ok": false}` result). `../acp-npm/client.mjs` is the same driver written
with the npm SDK; both are checked against `fake_agent.py` with `selftest.json`.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import sys
from typing import Any

import acp
from acp import RequestError
from acp.connection import StreamDirection, StreamEvent
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    Implementation,
    RequestPermissionResponse,
)
from pydantic import BaseModel, ValidationError

CLIENT_NAME = "acp-driver-py"
CLIENT_VERSION = "1.0.0"
STDERR_CAP = 64 * 1024
EXIT_GRACE_S = 5.0
STREAM_LIMIT = 50 * 1024 * 1024
CANCELLED = RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))


def dump(value: Any) -> Any:
    """JSON form of an SDK response, with only the fields the agent sent."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return value


def error_of(exc: BaseException) -> dict[str, Any]:
    if isinstance(exc, RequestError):
        out: dict[str, Any] = {"code": exc.code, "message": str(exc)}
        if exc.data is not None:
            out["data"] = exc.data
        return out
    if isinstance(exc, ValidationError):
        return {"message": f"invalid response: {exc}"}
    return {"message": str(exc) or type(exc).__name__}


class Prompt:
    """State of the running `prompt` step."""

    def __init__(self, session_id: str | None, cancel_on: str | None) -> None:
        self.session_id = session_id
        self.cancel_on = cancel_on
        self.cancelled = False
        self.pending: list[tuple[dict[str, Any], asyncio.Future[RequestPermissionResponse]]] = []


class Driver:
    def __init__(self, scenario: dict[str, Any], scenario_path: str) -> None:
        self.scenario = scenario
        self.scenario_dir = os.path.dirname(os.path.abspath(scenario_path))
        self.results: list[dict[str, Any]] = []
        self.updates: list[dict[str, Any]] = []
        self.sdk_updates = 0
        self.permission_requests: list[dict[str, Any]] = []
        self.unclaimed_permissions: list[dict[str, Any]] = []
        self.stderr = bytearray()
        self.current_session: str | None = None
        self.last_new_session: str | None = None
        self.permission_queue: list[str] = []
        self.active_prompt: Prompt | None = None
        self.finished = False
        self.proc: asyncio.subprocess.Process | None = None
        self.conn: Any = None

    # ---- Client side of the SDK ------------------------------------------------------------

    def observe(self, event: StreamEvent) -> None:
        """Records every incoming message before the SDK dispatches it (raw, in arrival order)."""
        if event.direction != StreamDirection.INCOMING:
            return
        message = event.message
        method = message.get("method")
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        if method == acp.CLIENT_METHODS["session_update"]:
            session_id = params.get("sessionId")
            update = params.get("update")
            self.updates.append({"sessionId": session_id, "update": update})
            prompt = self.active_prompt
            if (
                prompt is not None
                and not prompt.cancelled
                and prompt.cancel_on == "tool_call_in_progress"
                and session_id == prompt.session_id
                and isinstance(update, dict)
                and update.get("sessionUpdate") in ("tool_call", "tool_call_update")
                and update.get("status") == "in_progress"
            ):
                asyncio.ensure_future(self.send_cancel(prompt))
        elif method == acp.CLIENT_METHODS["session_request_permission"] and "id" in message:
            record = {**copy.deepcopy(params), "answered": "none"}
            self.permission_requests.append(record)
            self.unclaimed_permissions.append(record)

    def claim_permission(self, session_id: str, tool_call_id: str) -> dict[str, Any]:
        for i, record in enumerate(self.unclaimed_permissions):
            tool_call = record.get("toolCall") or {}
            if record.get("sessionId") == session_id and tool_call.get("toolCallId") == tool_call_id:
                return self.unclaimed_permissions.pop(i)
        record = {"sessionId": session_id, "toolCall": {"toolCallId": tool_call_id}, "answered": "none"}
        self.permission_requests.append(record)
        return record

    async def send_cancel(self, prompt: Prompt) -> None:
        if prompt.cancelled:
            return
        prompt.cancelled = True
        try:
            await self.conn.cancel(session_id=prompt.session_id)
        except Exception as exc:  # noqa: BLE001
            print(f"acp-driver-py: session/cancel failed: {exc}", file=sys.stderr)
        # A cancelled turn answers every pending permission request with `cancelled`.
        pending, prompt.pending = prompt.pending, []
        for record, future in pending:
            record["answered"] = "cancelled"
            if not future.done():
                future.set_result(CANCELLED)

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any):
        record = self.claim_permission(session_id, tool_call.tool_call_id)
        prompt = self.active_prompt
        if prompt is not None and prompt.session_id != session_id:
            prompt = None
        if prompt is not None and prompt.cancel_on == "permission" and not prompt.cancelled:
            await self.send_cancel(prompt)
        if prompt is not None and prompt.cancelled:
            record["answered"] = "cancelled"
            return CANCELLED
        kind = self.permission_queue.pop(0) if self.permission_queue else "reject_once"
        if kind == "none":
            record["answered"] = "none"
            future: asyncio.Future[RequestPermissionResponse] = asyncio.get_running_loop().create_future()
            if prompt is not None:
                prompt.pending.append((record, future))
            return await future
        option = next((o for o in options if o.kind == kind), None)
        if option is None:
            record["answered"] = "cancelled"
            return CANCELLED
        record["answered"] = kind
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=option.option_id))

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        # Recorded raw by `observe`; here only counted: the SDK parsed and accepted it.
        self.sdk_updates += 1
        return None

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(f"_{method}")

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    # ---- Steps ----------------------------------------------------------------------------

    async def run_step(self, step: dict[str, Any]) -> Any:
        op = step.get("op")
        conn = self.conn
        if op == "initialize":
            return await conn.initialize(
                protocol_version=1,
                client_capabilities=ClientCapabilities(
                    fs=FileSystemCapabilities(read_text_file=False, write_text_file=False),
                    terminal=False,
                ),
                client_info=Implementation(name=CLIENT_NAME, version=CLIENT_VERSION),
            )
        if op == "authenticate":
            return await conn.authenticate(method_id=step.get("methodId"))
        if op == "new_session":
            response = await conn.new_session(cwd=step.get("cwd"), mcp_servers=step.get("mcpServers") or [])
            self.current_session = self.last_new_session = response.session_id
            return response
        if op == "load_session":
            session_id = self.last_new_session if step.get("sessionId") == "$last" else step.get("sessionId")
            response = await conn.load_session(
                cwd=step.get("cwd"), session_id=session_id, mcp_servers=step.get("mcpServers") or []
            )
            self.current_session = session_id
            return response
        if op == "list_sessions":
            return await conn.list_sessions(cwd=step.get("cwd"), cursor=step.get("cursor"))
        if op == "prompt":
            self.permission_queue = list(step.get("permissions") or [])
            prompt = Prompt(self.current_session, step.get("cancel_on"))
            self.active_prompt = prompt
            try:
                return await conn.prompt(session_id=self.current_session, prompt=step.get("blocks") or [])
            finally:
                if self.active_prompt is prompt:
                    self.active_prompt = None
        if op == "set_mode":
            return await conn.set_session_mode(session_id=self.current_session, mode_id=step.get("modeId"))
        if op == "raw":
            method = step.get("method", "")
            params = step.get("params") or {}
            if method.startswith("_"):
                # The SDK's extension API adds the leading underscore itself.
                return await conn.ext_method(method[1:], params)
            # Not an extension name: the same request through the connection the SDK uses.
            return await conn._conn.send_request(method, params)
        if op == "raw_line":
            assert self.proc is not None and self.proc.stdin is not None
            self.proc.stdin.write(step.get("line", "").encode())
            await self.proc.stdin.drain()
            return {}
        if op == "sleep":
            await asyncio.sleep(float(step.get("ms", 0)) / 1000.0)
            return {}
        raise ValueError(f"unknown op: {op}")

    async def run_steps(self) -> None:
        for step in self.scenario.get("steps") or []:
            try:
                response = dump(await self.run_step(step))
                if response is None and step.get("op") != "raw":
                    response = {}
                entry = {"op": step.get("op"), "ok": True, "response": response}
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001
                entry = {"op": step.get("op"), "ok": False, "error": error_of(exc)}
            if self.finished:
                return
            self.results.append(entry)

    # ---- Process ----------------------------------------------------------------------------

    async def read_stderr(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        while True:
            chunk = await self.proc.stderr.read(65536)
            if not chunk:
                return
            room = STDERR_CAP - len(self.stderr)
            if room > 0:
                self.stderr += chunk[:room]

    async def run(self) -> int:
        command = self.scenario["command"]
        env = {**os.environ, **(self.scenario.get("env") or {})}
        cwd = self.scenario.get("cwd")
        cwd = os.path.join(self.scenario_dir, cwd) if cwd else os.getcwd()
        timed_out = False
        spawn_error = None
        try:
            self.proc = await asyncio.create_subprocess_exec(
                command[0],
                *command[1:],
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=env,
                cwd=cwd,
                limit=STREAM_LIMIT,
            )
        except OSError as exc:
            spawn_error = exc

        if self.proc is None:
            for step in self.scenario.get("steps") or []:
                self.results.append({"op": step.get("op"), "ok": False, "error": {"message": "agent not running"}})
            exit_code = None
        else:
            stderr_task = asyncio.ensure_future(self.read_stderr())
            self.conn = acp.connect_to_agent(self, self.proc.stdin, self.proc.stdout, observers=[self.observe])
            try:
                await asyncio.wait_for(self.run_steps(), timeout=float(self.scenario.get("timeout_ms", 60000)) / 1000.0)
            except asyncio.TimeoutError:
                timed_out = True
            self.finished = True
            if timed_out:
                self.results.append({"op": "timeout", "ok": False})

            # Close stdin, wait for the exit, kill after the grace period.
            try:
                if self.proc.stdin.can_write_eof():
                    self.proc.stdin.write_eof()
                self.proc.stdin.close()
            except (OSError, RuntimeError):
                pass
            try:
                await asyncio.wait_for(self.proc.wait(), timeout=EXIT_GRACE_S)
            except asyncio.TimeoutError:
                self.proc.kill()
                await self.proc.wait()
            try:
                await asyncio.wait_for(stderr_task, timeout=0.5)
            except asyncio.TimeoutError:
                stderr_task.cancel()
            try:
                await self.conn.close()
            except Exception:  # noqa: BLE001
                pass
            exit_code = self.proc.returncode

        stderr_text = self.stderr.decode("utf-8", errors="replace")
        if spawn_error is not None:
            stderr_text += f"acp-driver-py: cannot spawn agent: {spawn_error}\n"
        report = {
            "results": self.results,
            "updates": self.updates,
            "permission_requests": self.permission_requests,
            "sdk_updates": self.sdk_updates,
            "stderr": stderr_text,
            "exit_code": exit_code,
        }
        sys.stdout.write(json.dumps(report) + "\n")
        sys.stdout.flush()
        return 1 if timed_out else 0


def main() -> int:
    path = sys.argv[1]
    with open(path, encoding="utf-8") as f:
        scenario = json.load(f)
    return asyncio.run(Driver(scenario, path).run())


if __name__ == "__main__":
    sys.exit(main())
