// A warden tool plugin in JavaScript (componentize-js, WIT warden:plugin@0.3.0): `count_lines`
// counts the lines of a text file in the workspace. The checks and the counting are in
// logic.js; this file reads the file (fs.js) and returns the WIT types. Throwing a string
// answers the model with an error result; any other error is a failure of the plugin.

import { readBytes } from "./fs.js";
import { countLines, resolvePath, workspace } from "./logic.js";
import { named } from "./named.js";

const SCHEMA = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
let grant = { root: "", deny: [] };

export const act = named({
  init(config) {
    grant = workspace(new Map(config));
  },

  describe() {
    return [
      {
        name: "count_lines",
        description: "Count the lines of a text file in the workspace.",
        parameters: JSON.stringify(SCHEMA),
      },
    ];
  },

  call(name, argumentsJson) {
    if (name !== "count_lines") throw `unknown tool \`${name}\``;
    let args;
    try {
      args = JSON.parse(argumentsJson);
    } catch (err) {
      throw `bad arguments: ${err.message}`;
    }
    const path = args?.path;
    if (typeof path !== "string") throw "missing string argument `path`";
    const { full, relative } = resolvePath(grant, path);
    let text;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(readBytes(full));
    } catch (err) {
      throw `${path}: ${err?.code ?? "not valid UTF-8"}`;
    }
    return { content: `${relative}: ${countLines(text)} lines` };
  },
});
