// Native tests of logic.js: `node --test` (no wasm, no componentize-js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { decide, settings } from "./logic.js";

test("adds the context only when the word is there", () => {
  const current = { word: "deploy", context: "Deploys go through CI." };
  assert.equal(decide(current, "how do I deploy?"), "Deploys go through CI.");
  assert.equal(decide(current, "hello"), null);
});

test("the config needs a word", () => {
  assert.deepEqual(settings(new Map([["word", "deploy"]])), {
    word: "deploy",
    context: "The prompt mentions deploy.",
  });
  assert.throws(() => settings(new Map()), /missing config key `word`/);
  assert.throws(() => settings(new Map([["word", ""]])), /must not be empty/);
});
