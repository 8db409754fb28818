// A warden interceptor in JavaScript (componentize-js, WIT warden:plugin@0.2.0): a tool guard.
//
// Config:
// - `deny`: comma-separated rules `TOOL:PREFIX` (or just `TOOL`): a call of `TOOL` (`*` for any
//   tool) whose `path` argument starts with `PREFIX` is denied, e.g. `write_file:secrets/,shell`.
// - `rewrite`: comma-separated `FROM=>TO` path prefixes: a call whose `path` starts with `FROM`
//   runs with `TO` in its place, e.g. `old/=>new/`.
// - `note`: text of a system item added after every failed tool call (none by default).
//
// Paths are matched as the model wrote them (after dropping a leading `./`): a sample, not a
// sandbox.

import { log } from "warden:plugin/host@0.2.0";

let deny = [];
let rewrite = [];
let note = "";

const list = (text) =>
  (text ?? "")
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter((s) => s !== "");

// An uncaught error is a failure of the plugin: warden shows the first error the plugin wrote
// to stderr during the call. The engine prints an error's message without its name, and an
// Error thrown from `init` or `call` (which return a `result`) only as a string it could not
// encode; so print it here, name first, in the engine's form (message, `Stack:`, frames).
const named = (methods) =>
  Object.fromEntries(
    Object.entries(methods).map(([key, method]) => [
      key,
      (...args) => {
        try {
          return method(...args);
        } catch (err) {
          if (err instanceof Error) {
            console.error(`${err.name}: ${err.message}\nStack:\n${err.stack ?? ""}`);
          }
          throw err;
        }
      },
    ]),
  );

export const intercept = named({
  // Throwing a string refuses the config with that message (the `err` of `result<_, string>`).
  init(config) {
    const values = new Map(config);
    deny = list(values.get("deny")).map((rule) => {
      const at = rule.indexOf(":");
      const tool = (at < 0 ? rule : rule.slice(0, at)).trim();
      const prefix = at < 0 ? "" : rule.slice(at + 1).trim();
      if (tool === "") throw `deny rule ${JSON.stringify(rule)}: no tool name`;
      return { tool, prefix };
    });
    rewrite = list(values.get("rewrite")).map((rule) => {
      const at = rule.indexOf("=>");
      if (at <= 0) throw `rewrite rule ${JSON.stringify(rule)}: expected FROM=>TO`;
      return { from: rule.slice(0, at).trim(), to: rule.slice(at + 2).trim() };
    });
    note = values.get("note") ?? "";
  },

  preToolCall(call) {
    let args;
    try {
      args = JSON.parse(call.arguments);
    } catch {
      return { tag: "allow" };
    }
    let path = typeof args?.path === "string" ? args.path : null;
    if (path?.startsWith("./")) path = path.slice(2);
    for (const rule of deny) {
      if (rule.tool !== "*" && rule.tool !== call.name) continue;
      if (rule.prefix === "" || (path !== null && path.startsWith(rule.prefix))) {
        const reason = path === null
          ? `tool-guard: \`${call.name}\` is denied`
          : `tool-guard: \`${call.name}\` on \`${path}\` is denied`;
        log("info", reason);
        return { tag: "deny", val: reason };
      }
    }
    if (path !== null) {
      for (const { from, to } of rewrite) {
        if (path.startsWith(from)) {
          args.path = to + path.slice(from.length);
          return { tag: "rewrite", val: JSON.stringify(args) };
        }
      }
    }
    return { tag: "allow" };
  },

  postToolCall(_call, output) {
    return output.isError && note !== "" ? [{ tag: "system", val: note }] : [];
  },

  onPromptSubmit(_prompt) {
    return { tag: "continue" };
  },

  preLlmRequest(_request) {
    return [];
  },

  onTurnEnd(_turn) {
    return { tag: "finish" };
  },
});
