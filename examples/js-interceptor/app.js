// The `keyword-context` sample in JavaScript (componentize-js, WIT warden:plugin@0.2.0).
//
// Config: `word` (required), `context` (the text to add; default names the word), `mode`
// (`add`, the default, appends a system item with the context; `cancel` cancels the prompt with
// the context as the reason).

import { log } from "warden:plugin/host@0.2.0";

let settings = null;

export const intercept = {
  // Throwing a string refuses the config with that message (the `err` of `result<_, string>`).
  init(config) {
    const values = new Map(config);
    const word = values.get("word");
    if (word === undefined) throw "missing config key `word`";
    if (word === "") throw "config key `word` must not be empty";
    const mode = values.get("mode") ?? "add";
    if (mode !== "add" && mode !== "cancel") {
      throw `config key \`mode\`: expected add or cancel, got ${JSON.stringify(mode)}`;
    }
    settings = {
      word,
      context: values.get("context") ?? `The prompt mentions ${word}.`,
      cancel: mode === "cancel",
    };
  },

  onPromptSubmit(prompt) {
    if (settings === null || !prompt.text.includes(settings.word)) {
      return { tag: "continue" };
    }
    log("debug", `found ${JSON.stringify(settings.word)}`);
    if (settings.cancel) return { tag: "cancel", val: settings.context };
    return { tag: "continue-with", val: [{ tag: "system", val: settings.context }] };
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
};
