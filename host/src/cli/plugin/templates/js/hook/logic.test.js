// Native tests of logic.js: `node --test` (no wasm, no componentize-js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { Counts } from "./logic.js";

test("counts events and summarises at turn end", () => {
  const counts = new Counts();
  assert.equal(counts.count("prompt-submitted"), null);
  assert.equal(counts.count("turn-ended"), "event counts: prompt-submitted=1 turn-ended=1");
});
