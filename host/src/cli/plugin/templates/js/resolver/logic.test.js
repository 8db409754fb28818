// Native tests of logic.js: `node --test` (no wasm, no componentize-js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { cap, chunk, decode, fsError, listing, locate } from "./logic.js";

test("paths out of the workspace are refused and text is capped", () => {
  for (const path of ["../etc/passwd", "/etc/passwd"]) {
    assert.throws(() => locate("/ws", path), (err) => err.tag === "out-of-scope");
  }
  assert.equal(locate("/ws", "src/lib.rs"), "/ws/src/lib.rs");
  assert.deepEqual(cap("héllo", 2), ["h\n[...truncated, 6 bytes total]", true]);
});

test("a chunk counts lines from one", () => {
  assert.deepEqual(chunk("a\nb\nc\n", 2, 1, 100), {
    content: "b",
    firstLine: 2,
    lines: 1,
    totalLines: 3,
    more: true,
  });
});

test("errors name their case", () => {
  assert.equal(fsError("x", { code: "no-entry" }).tag, "not-found");
  assert.throws(() => decode("x", new Uint8Array([0xff])), (err) => err.tag === "binary");
  const entries = [{ name: "sub", directory: true }, { name: "a.txt", directory: false }];
  assert.deepEqual(listing(entries, 10), [["a.txt", "sub/"], false]);
  assert.deepEqual(listing(entries, 1), [["a.txt"], true]);
});
