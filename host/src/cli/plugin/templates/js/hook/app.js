// A warden hook in JavaScript (componentize-js, WIT warden:plugin@0.3.0): counts events by kind
// and logs the counts at the end of every turn. Config: none. See the logs with
// `WARDEN_LOG=warden::plugin=info`. The counting is in logic.js.

import { log } from "warden:plugin/host@0.3.0";

import { Counts } from "./logic.js";
import { named } from "./named.js";

let counts = new Counts();

export const observe = named({
  init(_config) {
    counts = new Counts();
  },

  onEvent(event) {
    const summary = counts.count(event.tag);
    if (summary !== null) log("info", summary);
  },
});
