// Native tests of logic.js: `node --test` (no wasm, no componentize-js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { Tally, warnAfter } from "./logic.js";

test("a turn is summed up and the next starts afresh", () => {
  const tally = new Tally(10);
  tally.toolRan("read_file", false);
  tally.toolRan("shell", true);
  tally.toolRan("read_file", false);
  tally.toolDenied("write_file");
  assert.deepEqual(tally.turnEnded(), [
    "info",
    "tools: 3 ran (read_file 2, shell 1); 1 failed (shell 1); 1 denied (write_file 1)",
  ]);
  assert.deepEqual(tally.turnEnded(), ["info", "tools: none ran"]);
});

test("a busy turn is a warning", () => {
  const tally = new Tally(1);
  tally.toolRan("grep", false);
  tally.toolRan("grep", false);
  assert.deepEqual(tally.turnEnded(), ["warn", "tools: 2 ran (grep 2); more than warn_after = 1"]);
});

test("warn_after is a positive number", () => {
  assert.equal(warnAfter(new Map()), 10);
  assert.equal(warnAfter(new Map([["warn_after", " 3 "]])), 3);
  for (const bad of ["0", "-1", "many"]) {
    assert.throws(() => warnAfter(new Map([["warn_after", bad]])), /warn_after/);
  }
});
