// The tool's logic, apart from the WIT glue in app.js so that `node --test` checks it without
// building the component: `count_lines` counts the lines of a workspace file.
//
// Its [[plugins]] entry must grant `fs = "read"`: the workspace roots are then opened to it at
// their own paths (the host adds them to the config as `roots`, newline-separated), and nothing
// else is. Absolute paths, `..` and the deny globs (`.env`, `*.pem`, `*.key` and the entry's
// `deny` config key, comma-separated) are refused.

const DENY = [".env", "*.pem", "*.key"];

/** The primary root and the deny globs of `config` (a Map); throws a string if none. */
export function workspace(config) {
  const roots = (config.get("roots") ?? "").split("\n").filter((l) => l.trim() !== "");
  if (roots.length === 0) throw "no workspace roots in the config";
  const extra = (config.get("deny") ?? "")
    .split(/[,\n]/)
    .map((g) => g.trim())
    .filter((g) => g !== "");
  return { root: roots[0], deny: [...DENY, ...extra] };
}

/** A glob as a regular expression: `*` and `?` never cross `/`; case is ignored. */
const globRegExp = (glob) =>
  new RegExp(
    `^${glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*").replace(/\?/g, "[^/]")}$`,
    "i",
  );

/** `{ full, relative }` of `path`; throws a string saying why it is refused. */
export function resolvePath({ root, deny }, path) {
  if (path.startsWith("/")) {
    throw `${path}: absolute paths are refused; give a path relative to the workspace root`;
  }
  const parts = path.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.includes("..")) throw `${path}: \`..\` is refused: the path must stay in the workspace`;
  const relative = parts.join("/");
  const name = parts[parts.length - 1] ?? "";
  const denied =
    parts.some((p) => p.toLowerCase() === ".git") ||
    deny.some((glob) =>
      glob.includes("/") ? globRegExp(glob.replace(/^\/+/, "")).test(relative) : globRegExp(glob).test(name),
    );
  if (denied) throw `${path}: denied by the workspace's deny globs`;
  return { full: [root, ...parts].join("/"), relative };
}

/** Lines of `text` (a last line without a newline counts). */
export function countLines(text) {
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}
