// notebook-resolver's logic, apart from the WIT glue in app.js so that `node --test` checks it
// without building the component: serve `@path` references and the model's file tools from the
// workspace, which the plugin sees read-only, with Jupyter notebooks (`.ipynb`) shown as their
// cells rather than as JSON: each cell's source under a `# [n] code` or `# [n] markdown` line,
// and, with `outputs = "true"`, the text a code cell printed (its first `output_lines` lines).
// A notebook that is not valid JSON is served as it is; so is every other file. warden applies
// its own deny globs before a path reaches the resolver.
//
// Config: `roots` (added by warden: the workspace roots, one per line; the first is primary),
// `outputs` (`true` or `false`, default `false`), `output_lines` (default 20).

/** How notebooks are shown, from `config` (a Map); throws a string saying what is wrong. */
export function options(config) {
  const outputs = (config.get("outputs") ?? "false").trim().toLowerCase();
  if (outputs !== "true" && outputs !== "false") {
    throw `config key \`outputs\` must be true or false, not '${outputs}'`;
  }
  const lines = (config.get("output_lines") ?? "20").trim();
  if (!/^[0-9]+$/.test(lines)) {
    throw `config key \`output_lines\` must be a whole number, not '${lines}'`;
  }
  return { outputs: outputs === "true", outputLines: Number(lines) };
}

/** A notebook field that is a string or a list of strings, as one string. */
const sourceOf = (value) =>
  Array.isArray(value) ? value.map(String).join("") : value == null ? "" : String(value);

/** The lines of a string (as Python's `splitlines` for `\n` and `\r\n`). */
const splitLines = (text) => (text === "" ? [] : text.replace(/\r?\n$/, "").split(/\r?\n/));

/** The cells of notebook `text`, or `text` itself when it is not a notebook. */
export function renderNotebook(text, { outputs, outputLines }) {
  let notebook;
  try {
    notebook = JSON.parse(text);
  } catch {
    return text;
  }
  const cells = notebook !== null && typeof notebook === "object" && !Array.isArray(notebook) ? notebook.cells : undefined;
  if (!Array.isArray(cells)) return text;
  const out = [];
  cells.forEach((cell, index) => {
    if (cell === null || typeof cell !== "object") return;
    const kind = String(cell.cell_type ?? "code");
    out.push(`# [${index + 1}] ${kind}`);
    out.push(sourceOf(cell.source).replace(/\n+$/, ""));
    if (outputs && kind === "code") {
      const printed = (cell.outputs ?? [])
        .filter((o) => o !== null && typeof o === "object" && o.output_type === "stream")
        .map((o) => sourceOf(o.text))
        .join("");
      const lines = splitLines(printed);
      if (lines.length > 0) {
        const kept = lines.slice(0, outputLines);
        out.push("# output", ...kept);
        if (lines.length > kept.length) out.push(`# ... ${lines.length - kept.length} more output lines`);
      }
    }
    out.push("");
  });
  return out.join("\n");
}

/** The text served for `path`: a notebook as its cells, any other file as it is. */
export const served = (path, text, shown) =>
  path.toLowerCase().endsWith(".ipynb") ? renderNotebook(text, shown) : text;

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
