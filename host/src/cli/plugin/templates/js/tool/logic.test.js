// Native tests of logic.js: `node --test` (no wasm, no componentize-js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { countLines, denied, resolvePath, workspace } from "./logic.js";

test("counts lines", () => {
  assert.equal(countLines(""), 0);
  assert.equal(countLines("a\nb\n"), 2);
  assert.equal(countLines("a\nb"), 2);
});

test("paths stay in the workspace and out of the deny globs", () => {
  const grant = workspace(new Map([["roots", "/ws\n/other"], ["deny", "secret/*"]]));
  assert.deepEqual(resolvePath(grant, "./src/a.txt"), { full: "/ws/src/a.txt", relative: "src/a.txt" });
  for (const [path, why] of [
    ["/etc/passwd", /absolute/],
    ["../x", /`\.\.`/],
    ["keys/id.PEM", /deny globs/],
    ["secret/a", /deny globs/],
  ]) {
    assert.throws(() => resolvePath(grant, path), why);
  }
  assert.throws(() => workspace(new Map()), /no workspace roots/);
});

test("deny globs read as in the Rust SDK", () => {
  const deny = ["**/secret*", "src/**/*.pem", "*.env"];
  for (const [path, expected] of [
    ["secret.md", true],
    ["deep/er/secret.md", true],
    ["docs/secretary/x.txt", false],
    ["src/key.pem", true],
    ["src/a/b/key.PEM", true],
    ["lib/key.pem", false],
    ["a.env", true],
    ["conf/b.env", true],
    ["notes.txt", false],
    ["sub/.git/config", true],
  ]) {
    assert.equal(denied(deny, path), expected, path);
  }
});
