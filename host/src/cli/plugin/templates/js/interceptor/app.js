// A warden interceptor in JavaScript (componentize-js, WIT warden:plugin@0.3.0). The decisions
// are in logic.js; this file turns them into the WIT types.

import { decide, settings } from "./logic.js";
import { named } from "./named.js";

let current = { word: "", context: "" };

export const intercept = named({
  // Throwing a string refuses the config with that message (the `err` of `result<_, string>`).
  init(config) {
    current = settings(new Map(config));
  },

  // The prompt is lent for this call: ask it for what you need (`text()`, `find()`, ...).
  onPromptSubmit(prompt) {
    const extra = decide(current, prompt.text());
    return extra === null
      ? { tag: "continue" }
      : { tag: "continue-with", val: [{ tag: "system", val: extra }] };
  },

  preLlmRequest(_request) {
    return [];
  },

  onTurnEnd(_turn) {
    return { tag: "finish" };
  },

  preToolCall(_call) {
    return { tag: "allow" };
  },

  postToolCall(_call, _output) {
    return [];
  },

  onCompaction(_info) {
    return [];
  },
});
