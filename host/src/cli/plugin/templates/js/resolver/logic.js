// The resolver's logic, apart from the WIT glue in app.js so that `node --test` checks it
// without building the component: serve `@path` references and the model's file tools from the
// workspace, which the plugin sees read-only. A starting point: it has no deny list and lists
// one directory level; warden's built-in resolver is the full reference.
//
// Config: `roots` (added by warden: the workspace roots, one per line; the first is primary).

/** Why a path is not served: `tag` names the WIT `resolve-error` case. */
export const refused = (tag, val) => ({ tag, val });

export function rootOf(config) {
  const roots = config.get("roots");
  if (roots === undefined) throw "missing config key `roots`";
  const first = roots.split("\n")[0];
  if (roots === "" || first === undefined) throw "config key `roots` is empty";
  return first;
}

/** `path` under the root, or throws `refused("out-of-scope", …)`. */
export function locate(root, path) {
  const parts = path.split("/");
  if (path.startsWith("/") || parts.includes("..")) {
    throw refused("out-of-scope", `${path} is outside the workspace`);
  }
  return [root, ...parts.filter((p) => p !== "" && p !== ".")].join("/");
}

/** The text of `bytes` read from `path`, or throws `refused("binary", …)`. */
export function decode(path, bytes) {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw refused("binary", `${path} is not text`);
  }
}

/** A file-system failure (`{ code, message }`) of `path` as a WIT error. */
export function fsError(path, err) {
  return err?.code === "no-entry"
    ? refused("not-found", `${path} not found`)
    : refused("io", `${path}: ${err?.code ?? err}`);
}

/** `text` cut to at most `maxBytes` bytes at a character boundary: `[text, truncated]`. */
export function cap(text, maxBytes) {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= maxBytes) return [text, false];
  let cut = maxBytes;
  while (cut > 0 && (bytes[cut] & 0xc0) === 0x80) cut -= 1;
  const kept = new TextDecoder().decode(bytes.subarray(0, cut));
  return [`${kept}\n[...truncated, ${bytes.length} bytes total]`, true];
}

/** The lines of `text`: a last line without a newline counts, `\r\n` ends a line too. */
export function linesOf(text) {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
}

/** `limit` lines from 1-based line `offset` (0: from the start), capped at `maxBytes`. */
export function chunk(text, offset, limit, maxBytes) {
  const lines = linesOf(text);
  const firstLine = Math.max(offset, 1);
  const start = Math.min(firstLine - 1, lines.length);
  const end = Math.min(start + limit, lines.length);
  const [content] = cap(lines.slice(start, end).join("\n"), maxBytes);
  return { content, firstLine, lines: end - start, totalLines: lines.length, more: end < lines.length };
}

/** Sorted names (directories with a `/`), at most `maxEntries`: `[entries, truncated]`. */
export function listing(entries, maxEntries) {
  const names = entries
    .map(({ name, directory }) => (directory ? `${name}/` : name))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return [names.slice(0, maxEntries), names.length > maxEntries];
}
