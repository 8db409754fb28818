// An ACP client driver written with the npm Agent Client Protocol SDK (@agentclientprotocol/sdk).
//
// Usage: node client.mjs SCENARIO.json
//
// It spawns the scenario's `command` (with `env` merged over this process's environment, in
// `cwd`), connects to it over stdio with the SDK's client app (`client().connect(ndJsonStream(...))`),
// runs the scenario's steps in order, closes the agent's stdin, waits for the agent to exit
// (killing it after 5 s) and prints one JSON object on stdout:
//   { results, updates, permission_requests, stderr, exit_code }
// `updates` and `permission_requests` hold the raw JSON-RPC params as they arrived on the wire.
// `exit_code` is the agent's exit status, or minus the signal number when a signal ended it.
// The driver exits 0 unless the scenario's `timeout_ms` elapsed (then 1, with a final
// `{"op":"timeout","ok":false}` result). `../acp-py/client.py` is the same driver written with the
// Python SDK; both are checked against `../acp-py/fake_agent.py` with `../acp-py/selftest.json`.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { dirname, resolve as resolvePath } from 'node:path';
import { Readable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

const CLIENT_NAME = 'acp-driver-ts';
const CLIENT_VERSION = '1.0.0';
const STDERR_CAP = 64 * 1024;
const EXIT_GRACE_MS = 5000;

process.on('unhandledRejection', (error) => {
  process.stderr.write(`acp-driver-ts: unhandled rejection: ${error?.stack ?? error}\n`);
});

const scenarioPath = process.argv[2];
const scenario = JSON.parse(readFileSync(scenarioPath, 'utf8'));
const steps = Array.isArray(scenario.steps) ? scenario.steps : [];
const timeoutMs = Number(scenario.timeout_ms ?? 60000);

const results = [];
const updates = [];
// Updates the SDK parsed and handed to the handler (an update it rejects is not counted).
let sdkUpdates = 0;
const permissionRequests = [];
const permissionRecords = new Map(); // JSON-RPC request id -> permission_requests entry
let stderrBytes = Buffer.alloc(0);
let finished = false;

// Per-run state shared by the steps and the message handlers.
let currentSession = null;
let lastNewSession = null;
let permissionQueue = [];
let activePrompt = null; // { sessionId, cancelOn, cancelled, pending: [{ record, resolve }] }

// ---- The agent process ---------------------------------------------------------------------

const [program, ...args] = scenario.command;
const child = spawn(program, args, {
  // A relative `cwd` is taken from the scenario file's directory.
  cwd: scenario.cwd ? resolvePath(dirname(resolvePath(scenarioPath)), scenario.cwd) : process.cwd(),
  env: { ...process.env, ...(scenario.env ?? {}) },
  stdio: ['pipe', 'pipe', 'pipe'],
});
let spawnError = null;
const spawned = new Promise((resolve) => {
  child.on('spawn', resolve);
  child.on('error', resolve);
});
const exited = new Promise((resolve) => {
  child.on('error', (error) => {
    spawnError = error;
    resolve();
  });
  child.on('exit', () => resolve());
});
const stderrClosed = new Promise((resolve) => child.stderr.on('close', resolve));
child.stdin.on('error', () => {});
child.stderr.on('data', (chunk) => {
  if (stderrBytes.length < STDERR_CAP) {
    stderrBytes = Buffer.concat([stderrBytes, chunk]).subarray(0, STDERR_CAP);
  }
});

// The SDK writes through this stream; `raw_line` writes to the same pipe directly.
const agentInput = new WritableStream({
  write(chunk) {
    return new Promise((resolve, reject) => {
      if (child.stdin.destroyed || child.stdin.writableEnded) {
        reject(new Error('agent stdin is closed'));
        return;
      }
      child.stdin.write(chunk, (error) => (error ? reject(error) : resolve()));
    });
  },
});
const agentOutput = Readable.toWeb(child.stdout);

// Records every incoming message before the SDK dispatches it, so `updates` and
// `permission_requests` keep the raw wire params in arrival order.
const tap = new TransformStream({
  transform(message, controller) {
    observe(message);
    controller.enqueue(message);
  },
});

function observe(message) {
  if (message?.method === acp.methods.client.session.update && message.params) {
    const { sessionId, update } = message.params;
    updates.push({ sessionId, update });
    if (
      activePrompt &&
      !activePrompt.cancelled &&
      activePrompt.cancelOn === 'tool_call_in_progress' &&
      sessionId === activePrompt.sessionId &&
      (update?.sessionUpdate === 'tool_call' || update?.sessionUpdate === 'tool_call_update') &&
      update?.status === 'in_progress'
    ) {
      void sendCancel(activePrompt);
    }
  } else if (
    message?.method === acp.methods.client.session.requestPermission &&
    message.id !== undefined
  ) {
    const record = { ...(message.params ?? {}), answered: 'none' };
    permissionRequests.push(record);
    permissionRecords.set(message.id, record);
  }
}

const CANCELLED = { outcome: { outcome: 'cancelled' } };

async function sendCancel(prompt) {
  if (prompt.cancelled) return;
  prompt.cancelled = true;
  try {
    await connection.agent.notify(acp.methods.agent.session.cancel, { sessionId: prompt.sessionId });
  } catch (error) {
    process.stderr.write(`acp-driver-ts: session/cancel failed: ${error}\n`);
  }
  // A cancelled turn answers every pending permission request with `cancelled`.
  for (const { record, resolve } of prompt.pending.splice(0)) {
    record.answered = 'cancelled';
    resolve(CANCELLED);
  }
}

async function answerPermission(ctx) {
  const params = ctx.params;
  let record = permissionRecords.get(ctx.requestId);
  if (!record) {
    record = { ...params, answered: 'none' };
    permissionRequests.push(record);
  }
  const prompt = activePrompt && activePrompt.sessionId === params.sessionId ? activePrompt : null;
  if (prompt && prompt.cancelOn === 'permission' && !prompt.cancelled) {
    await sendCancel(prompt);
  }
  if (prompt && prompt.cancelled) {
    record.answered = 'cancelled';
    return CANCELLED;
  }
  const kind = permissionQueue.length > 0 ? permissionQueue.shift() : 'reject_once';
  if (kind === 'none') {
    record.answered = 'none';
    return new Promise((resolve) => {
      if (prompt) prompt.pending.push({ record, resolve });
    });
  }
  const option = (params.options ?? []).find((o) => o.kind === kind);
  if (!option) {
    record.answered = 'cancelled';
    return CANCELLED;
  }
  record.answered = kind;
  return { outcome: { outcome: 'selected', optionId: option.optionId } };
}

const app = acp
  .client({ name: CLIENT_NAME })
  .onRequest(acp.methods.client.session.requestPermission, answerPermission)
  .onNotification(acp.methods.client.session.update, () => {
    sdkUpdates += 1;
  });
const stream = acp.ndJsonStream(agentInput, agentOutput);
const connection = app.connect({
  writable: stream.writable,
  readable: stream.readable.pipeThrough(tap),
});

// ---- Steps ---------------------------------------------------------------------------------

function errorOf(error) {
  if (error && typeof error === 'object' && typeof error.code === 'number') {
    const out = { code: error.code, message: String(error.message ?? '') };
    if (error.data !== undefined) out.data = error.data;
    return out;
  }
  return { message: String(error?.message ?? error) };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function runStep(step) {
  const agent = connection.agent;
  switch (step.op) {
    case 'initialize':
      return agent.request(acp.methods.agent.initialize, {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: CLIENT_NAME, version: CLIENT_VERSION },
      });
    case 'authenticate': {
      const response = await agent.request(acp.methods.agent.authenticate, { methodId: step.methodId });
      return response ?? {};
    }
    case 'new_session': {
      const response = await agent.request(acp.methods.agent.session.new, {
        cwd: step.cwd,
        mcpServers: step.mcpServers ?? [],
      });
      currentSession = lastNewSession = response.sessionId;
      return response;
    }
    case 'load_session': {
      const sessionId = step.sessionId === '$last' ? lastNewSession : step.sessionId;
      const response = await agent.request(acp.methods.agent.session.load, {
        sessionId,
        cwd: step.cwd,
        mcpServers: step.mcpServers ?? [],
      });
      currentSession = sessionId;
      return response ?? {};
    }
    case 'list_sessions': {
      const params = {};
      if (step.cwd !== undefined) params.cwd = step.cwd;
      if (step.cursor !== undefined) params.cursor = step.cursor;
      return agent.request(acp.methods.agent.session.list, params);
    }
    case 'prompt': {
      permissionQueue = [...(step.permissions ?? [])];
      const prompt = {
        sessionId: currentSession,
        cancelOn: step.cancel_on ?? null,
        cancelled: false,
        pending: [],
      };
      activePrompt = prompt;
      try {
        return await agent.request(acp.methods.agent.session.prompt, {
          sessionId: currentSession,
          prompt: step.blocks ?? [],
        });
      } finally {
        if (activePrompt === prompt) activePrompt = null;
      }
    }
    case 'set_mode': {
      const response = await agent.request(acp.methods.agent.session.setMode, {
        sessionId: currentSession,
        modeId: step.modeId,
      });
      return response ?? {};
    }
    case 'raw': {
      const response = await agent.request(step.method, step.params ?? {});
      return response ?? null;
    }
    case 'raw_line':
      await new Promise((resolve, reject) =>
        child.stdin.write(step.line, (error) => (error ? reject(error) : resolve())),
      );
      return {};
    case 'sleep':
      await sleep(Number(step.ms ?? 0));
      return {};
    default:
      throw new Error(`unknown op: ${step.op}`);
  }
}

async function runSteps() {
  await spawned;
  if (spawnError) {
    for (const step of steps) results.push({ op: step.op, ok: false, error: { message: 'agent not running' } });
    return;
  }
  for (const step of steps) {
    if (finished) return;
    let entry;
    try {
      const response = await runStep(step);
      entry = { op: step.op, ok: true, response: response ?? null };
    } catch (error) {
      entry = { op: step.op, ok: false, error: errorOf(error) };
    }
    if (finished) return;
    results.push(entry);
  }
}

let timer;
const timedOut = await Promise.race([
  runSteps().then(() => false),
  new Promise((resolve) => {
    timer = setTimeout(() => resolve(true), timeoutMs);
  }),
]);
clearTimeout(timer);
finished = true;
if (timedOut) results.push({ op: 'timeout', ok: false });

// ---- Shutdown ------------------------------------------------------------------------------

child.stdin.end();
let killTimer;
await Promise.race([exited, new Promise((resolve) => (killTimer = setTimeout(resolve, EXIT_GRACE_MS)))]);
clearTimeout(killTimer);
if (child.exitCode === null && child.signalCode === null && !spawnError) {
  child.kill('SIGKILL');
  await exited;
}
// Give the stderr pipe a moment to drain after the exit.
await Promise.race([stderrClosed, sleep(500)]);
connection.close();

let exitCode = null;
if (spawnError) exitCode = null;
else if (child.exitCode !== null) exitCode = child.exitCode;
else if (child.signalCode) exitCode = -(osConstants.signals[child.signalCode] ?? 1);

let stderrText = stderrBytes.toString('utf8');
if (spawnError) stderrText += `acp-driver-ts: cannot spawn agent: ${spawnError.message}\n`;

const report = {
  results,
  updates,
  permission_requests: permissionRequests,
  sdk_updates: sdkUpdates,
  stderr: stderrText,
  exit_code: exitCode,
};
process.stdout.write(JSON.stringify(report) + '\n', () => process.exit(timedOut ? 1 : 0));
