// tool-tally, a warden hook in JavaScript (componentize-js, WIT warden:plugin@0.3.0): at the end
// of every turn it logs which tools ran, failed or were denied, and warns when a turn made more
// tool calls than `warn_after`. The tally is in logic.js; this file turns the WIT events into it.

import { log } from "warden:plugin/host@0.3.0";

import { Tally, warnAfter } from "./logic.js";
import { named } from "./named.js";

let tally = new Tally(10);

export const observe = named({
  // Throwing a string refuses the config with that message.
  init(config) {
    tally = new Tally(warnAfter(new Map(config)));
  },

  // Events are `{ tag, val }`: the WIT case and its payload.
  onEvent(event) {
    switch (event.tag) {
      case "tool-ran":
        tally.toolRan(event.val.name, event.val.isError);
        break;
      case "tool-decided":
        if (event.val.action.tag === "deny") tally.toolDenied(event.val.call.name);
        break;
      case "turn-ended": {
        const [level, line] = tally.turnEnded();
        log(level, line);
        break;
      }
      default:
    }
  },
});
