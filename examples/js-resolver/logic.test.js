// Native tests of logic.js: `node --test` (no wasm, no componentize-js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { locate, options, renderNotebook, served } from "./logic.js";

const NOTEBOOK = JSON.stringify({
  cells: [
    { cell_type: "markdown", source: ["# Sales\n", "By month."] },
    {
      cell_type: "code",
      source: "total = sum(rows)\nprint(total)\n",
      outputs: [{ output_type: "stream", name: "stdout", text: ["1\n", "2\n", "3\n"] }],
    },
  ],
  metadata: {},
  nbformat: 4,
  nbformat_minor: 5,
});

test("a notebook is shown as its cells", () => {
  assert.equal(
    renderNotebook(NOTEBOOK, options(new Map())),
    "# [1] markdown\n# Sales\nBy month.\n\n# [2] code\ntotal = sum(rows)\nprint(total)\n",
  );
});

test("outputs on request, and capped", () => {
  const text = renderNotebook(NOTEBOOK, options(new Map([["outputs", "true"], ["output_lines", "2"]])));
  assert.ok(text.includes("print(total)\n# output\n1\n2\n# ... 1 more output lines\n"), text);
});

test("what is not a notebook is served as it is", () => {
  for (const text of ["{not json", "[1, 2]", '{"cells": 3}']) {
    assert.equal(renderNotebook(text, options(new Map())), text);
  }
  assert.equal(served("a.txt", NOTEBOOK, options(new Map())), NOTEBOOK);
});

test("options are checked, paths stay in the workspace", () => {
  assert.throws(() => options(new Map([["outputs", "yes"]])), /outputs/);
  assert.throws(() => options(new Map([["output_lines", "-1"]])), /output_lines/);
  assert.throws(() => locate("/ws", "../x"), (err) => err.tag === "out-of-scope");
});
