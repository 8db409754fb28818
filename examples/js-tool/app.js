// A tool plugin in JavaScript (componentize-js, WIT warden:plugin@0.2.0): `text_stats` counts
// the lines, words and characters of a text the model passes.
//
// It needs no grant: with none (the default) a tool plugin sees no file, no network and no
// environment variable, so this one can only compute on its arguments. A tool that needs more
// asks for it in its [[plugins]] entry (`fs`, `allowed_hosts`, `env`) and reaches the network
// only through `fetch` of `warden:plugin/outgoing@0.2.0`.
//
// Config: `max_chars` (default 100000): longer texts are refused.

import { log } from "warden:plugin/host@0.2.0";

let maxChars = 100000;

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

export const act = named({
  // Throwing a string refuses the config with that message (the `err` of `result<_, string>`).
  init(config) {
    const values = new Map(config);
    const max = values.get("max_chars");
    if (max !== undefined) {
      const n = Number(max);
      if (!Number.isInteger(n) || n <= 0) {
        throw `config key \`max_chars\`: expected a positive integer, got ${JSON.stringify(max)}`;
      }
      maxChars = n;
    }
  },

  describe() {
    return [
      {
        name: "text_stats",
        description: "Count the lines, words and characters of a text.",
        parameters: JSON.stringify({
          type: "object",
          properties: { text: { type: "string" } },
          required: ["text"],
        }),
      },
    ];
  },

  // Throwing a string answers the model with an error result (the `err` of the `result`).
  // Anything else thrown (a TypeError, …) is a failure of the plugin: warden shows its message
  // and stack, and the model sees that the tool failed.
  call(name, argumentsJson) {
    if (name !== "text_stats") throw `unknown tool \`${name}\``;
    const args = JSON.parse(argumentsJson);
    const text = args.text;
    if (text.length > maxChars) throw `text has ${text.length} characters; the limit is ${maxChars}`;
    const lines = text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    const words = text.split(/\s+/).filter((w) => w !== "").length;
    log("debug", `text_stats: ${text.length} characters`);
    return { content: `${lines} lines, ${words} words, ${text.length} characters` };
  },
});
