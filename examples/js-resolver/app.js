// notebook-resolver, a warden resolver in JavaScript (componentize-js, WIT warden:plugin@0.3.0):
// serves `@path` references and the model's file tools from the workspace, with Jupyter
// notebooks shown as their cells. What it serves is decided in logic.js; this file reads the
// workspace (fs.js) and returns the WIT types. Throwing a `{ tag, val }` resolve-error returns
// the `err` case of the result.

import { readBytes, readDir } from "./fs.js";
import { cap, chunk, decode, fsError, listing, locate, options, rootOf, served } from "./logic.js";
import { named } from "./named.js";

let root = "";
let shown = options(new Map());
const encoder = new TextEncoder();

function read(path) {
  const full = locate(root, path);
  let bytes;
  try {
    bytes = readBytes(full);
  } catch (err) {
    throw fsError(path, err);
  }
  return served(path, decode(path, bytes), shown);
}

export const resolve = named({
  init(config) {
    root = rootOf(new Map(config));
    shown = options(new Map(config));
  },

  resolve(request) {
    const text = read(request.path);
    // `max-bytes` and `total-bytes` are u64: BigInt here.
    const [content, truncated] = cap(text, Number(request.maxBytes));
    return {
      path: request.path,
      kind: "file",
      content: encoder.encode(content),
      totalBytes: BigInt(encoder.encode(text).length),
      truncated,
    };
  },

  readFile(path, offset, limit, maxBytes) {
    const part = chunk(read(path), offset, limit, Number(maxBytes));
    return { ...part, path, content: encoder.encode(part.content) };
  },

  listFiles(path, maxEntries) {
    const full = locate(root, path);
    let entries;
    try {
      entries = readDir(full);
    } catch (err) {
      throw { tag: "not-found", val: `${path}: ${err?.code ?? err}` };
    }
    const [names, truncated] = listing(entries, maxEntries);
    return { path, entries: names, truncated };
  },
});
