#!/usr/bin/env python3
"""A tiny ACP agent written with the Python `agent-client-protocol` SDK.

It is the self-test fixture of the two ACP client drivers (`client.py` here and
`../acp-npm/client.mjs`): run either driver with `selftest.json` and the driver
talks to this agent over stdio. It supports:

- initialize: loadSession true, session/list advertised.
- session/new: a fresh session with the modes read-only, ask, auto-edit, full-auto.
- session/load: replays one user_message_chunk and one agent_message_chunk.
- session/list: the sessions created on this connection.
- session/set_mode: switches mode and sends current_mode_update.
- session/prompt: two agent_message_chunk updates, a pending tool_call, a
  permission request (allow_once / allow_always / reject_once), tool_call_update
  in_progress, then completed with a diff (or failed when rejected), a plan, and
  end_turn. A session/cancel at any point ends the turn with `cancelled`; a
  permission request left unanswered for 1 s ends it with `refusal`.
- any other method: the SDK's Method Not Found error.
"""

from __future__ import annotations

import asyncio
import sys
import uuid
from typing import Any

import acp
from acp import RequestError
from acp.helpers import (
    plan_entry,
    start_tool_call,
    tool_diff_content,
    update_agent_message_text,
    update_current_mode,
    update_plan,
    update_tool_call,
    update_user_message_text,
)
from acp.schema import (
    AgentCapabilities,
    AuthenticateResponse,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PermissionOption,
    PromptResponse,
    SessionCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SessionMode,
    SessionModeState,
    SetSessionModeResponse,
    ToolCallUpdate,
)

PERMISSION_WAIT_S = 1.0

MODES = [
    SessionMode(id="read-only", name="Read only"),
    SessionMode(id="ask", name="Ask"),
    SessionMode(id="auto-edit", name="Auto edit"),
    SessionMode(id="full-auto", name="Full auto"),
]


def _modes(current: str) -> SessionModeState:
    return SessionModeState(current_mode_id=current, available_modes=MODES)


class FakeAgent:
    def __init__(self) -> None:
        self._conn: Any = None
        self._sessions: dict[str, dict[str, Any]] = {}
        self._cancelled: dict[str, asyncio.Event] = {}

    def on_connect(self, conn: Any) -> None:
        self._conn = conn

    async def initialize(self, protocol_version: int, client_capabilities=None, client_info=None, **kwargs):
        return InitializeResponse(
            protocol_version=1,
            agent_capabilities=AgentCapabilities(
                load_session=True,
                session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
            ),
            agent_info=Implementation(name="fake-agent", version="0.0.0"),
            auth_methods=[],
        )

    async def authenticate(self, method_id: str, **kwargs):
        if method_id != "fake":
            raise RequestError.invalid_params({"methodId": method_id})
        return AuthenticateResponse()

    async def new_session(self, cwd: str, additional_directories=None, mcp_servers=None, **kwargs):
        session_id = f"sess-{uuid.uuid4().hex[:8]}"
        self._sessions[session_id] = {"cwd": cwd, "mode": "ask"}
        return NewSessionResponse(session_id=session_id, modes=_modes("ask"))

    async def load_session(self, cwd: str, session_id: str, mcp_servers=None, additional_directories=None, **kwargs):
        if session_id not in self._sessions:
            raise RequestError.resource_not_found(session_id)
        await self._conn.session_update(session_id, update_user_message_text("earlier question"))
        await self._conn.session_update(session_id, update_agent_message_text("earlier answer"))
        return LoadSessionResponse(modes=_modes(self._sessions[session_id]["mode"]))

    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None, **kwargs):
        return ListSessionsResponse(
            sessions=[
                SessionInfo(session_id=sid, cwd=info["cwd"])
                for sid, info in self._sessions.items()
                if cwd is None or info["cwd"] == cwd
            ]
        )

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs):
        if session_id not in self._sessions:
            raise RequestError.resource_not_found(session_id)
        if mode_id not in {m.id for m in MODES}:
            raise RequestError.invalid_params({"modeId": mode_id})
        self._sessions[session_id]["mode"] = mode_id
        await self._conn.session_update(session_id, update_current_mode(mode_id))
        return SetSessionModeResponse()

    async def cancel(self, session_id: str, **kwargs) -> None:
        event = self._cancelled.get(session_id)
        if event is not None:
            event.set()

    async def _pause(self, cancelled: asyncio.Event) -> bool:
        """Waits a little; True when the turn was cancelled meanwhile."""
        try:
            await asyncio.wait_for(cancelled.wait(), timeout=0.1)
        except asyncio.TimeoutError:
            pass
        return cancelled.is_set()

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs):
        if session_id not in self._sessions:
            raise RequestError.resource_not_found(session_id)
        cancelled = asyncio.Event()
        self._cancelled[session_id] = cancelled
        send = self._conn.session_update
        stop = PromptResponse(stop_reason="cancelled")
        try:
            await send(session_id, update_agent_message_text("Hello "))
            await send(session_id, update_agent_message_text("world."))
            await send(
                session_id,
                start_tool_call("call-1", "Edit hello.txt", kind="edit", status="pending", raw_input={"path": "hello.txt"}),
            )
            permission = asyncio.ensure_future(
                self._conn.request_permission(
                    session_id=session_id,
                    tool_call=ToolCallUpdate(tool_call_id="call-1", title="Edit hello.txt", kind="edit", status="pending"),
                    options=[
                        PermissionOption(option_id="allow", name="Allow once", kind="allow_once"),
                        PermissionOption(option_id="always", name="Always allow", kind="allow_always"),
                        PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
                    ],
                )
            )
            cancel_wait = asyncio.ensure_future(cancelled.wait())
            await asyncio.wait({permission, cancel_wait}, timeout=PERMISSION_WAIT_S, return_when=asyncio.FIRST_COMPLETED)
            cancel_wait.cancel()
            if not permission.done() and not cancelled.is_set():
                # Nobody answered: give up on the tool and end the turn.
                permission.cancel()
                await send(session_id, update_tool_call("call-1", status="failed"))
                return PromptResponse(stop_reason="refusal")
            if not permission.done():
                # Cancelled while the request is pending: the client must still answer it.
                try:
                    await asyncio.wait_for(asyncio.shield(permission), timeout=1.0)
                except Exception:
                    permission.cancel()
                return stop
            outcome = permission.result().outcome
            if outcome.outcome == "cancelled" or cancelled.is_set():
                return stop
            if outcome.option_id == "reject":
                await send(session_id, update_tool_call("call-1", status="failed"))
            else:
                await send(session_id, update_tool_call("call-1", status="in_progress"))
                if await self._pause(cancelled):
                    return stop
                await send(
                    session_id,
                    update_tool_call(
                        "call-1",
                        status="completed",
                        content=[tool_diff_content("/tmp/hello.txt", "hello\n", "")],
                    ),
                )
            await send(
                session_id,
                update_plan(
                    [
                        plan_entry("Edit hello.txt", priority="high", status="completed"),
                        plan_entry("Report", status="in_progress"),
                    ]
                ),
            )
            if cancelled.is_set():
                return stop
            return PromptResponse(stop_reason="end_turn")
        finally:
            self._cancelled.pop(session_id, None)

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(f"_{method}")

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None


async def main() -> None:
    print("fake agent: started", file=sys.stderr, flush=True)
    await acp.run_agent(FakeAgent())
    print("fake agent: stdin closed", file=sys.stderr, flush=True)


if __name__ == "__main__":
    asyncio.run(main())
