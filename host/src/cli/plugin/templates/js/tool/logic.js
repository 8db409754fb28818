// The tool's logic, apart from the WIT glue in app.js so that `node --test` checks it without
// building the component: `count_lines` counts the lines of a workspace file.
//
// Its [[plugins]] entry must grant `fs = "read"`: the workspace roots are then opened to it at
// their own paths (the host adds them to the config as `roots`, newline-separated), and nothing
// else is. Absolute paths, `..` and the deny globs (`.env`, `*.pem`, `*.key` and the entry's
// `deny` config key, comma-separated) are refused.
//
// Deny globs read as in the Rust SDK: a glob without `/` matches a name at any depth; one with
// `/` matches the whole root-relative path; `*` and `?` never cross `/`, `**` as a whole
// component crosses any number of directories, `[...]` is a class and `{a,b}` either; case is
// ignored.

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

/** The regular expression a deny glob stands for, over a root-relative path. */
export function globRegExp(glob) {
  const pattern = glob.includes("/") ? glob.replace(/^\/+/, "") : `**/${glob}`;
  let out = "";
  let braces = 0;
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i];
    const atStart = i === 0 || pattern[i - 1] === "/";
    if (pattern.startsWith("**/", i) && atStart) {
      out += "(?:.*/)?";
      i += 3;
    } else if (pattern.startsWith("**", i) && atStart && i + 2 === pattern.length) {
      out += ".*";
      i += 2;
    } else if (c === "*") {
      out += "[^/]*";
      i += 1;
    } else if (c === "?") {
      out += "[^/]";
      i += 1;
    } else if (c === "[" && pattern.indexOf("]", i + 2) !== -1) {
      const end = pattern.indexOf("]", i + 2);
      const body = pattern.slice(i + 1, end).replace(/\\/g, "\\\\");
      out += body.startsWith("!") ? `[^${body.slice(1)}]` : `[${body}]`;
      i = end + 1;
    } else if (c === "{") {
      out += "(?:";
      braces += 1;
      i += 1;
    } else if (c === "}" && braces > 0) {
      out += ")";
      braces -= 1;
      i += 1;
    } else if (c === "," && braces > 0) {
      out += "|";
      i += 1;
    } else {
      out += c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
      i += 1;
    }
  }
  return new RegExp(`^${out}$`, "i");
}

/** Whether root-relative `relative` is denied (any `.git` component always is). */
export function denied(deny, relative) {
  if (relative.split("/").some((p) => p.toLowerCase() === ".git")) return true;
  return deny.some((glob) => globRegExp(glob).test(relative));
}

/** `{ full, relative }` of `path`; throws a string saying why it is refused. */
export function resolvePath({ root, deny }, path) {
  if (path.startsWith("/")) {
    throw `${path}: absolute paths are refused; give a path relative to the workspace root`;
  }
  const parts = path.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.includes("..")) throw `${path}: \`..\` is refused: the path must stay in the workspace`;
  const relative = parts.join("/");
  if (denied(deny, relative)) throw `${path}: denied by the workspace's deny globs`;
  return { full: [root, ...parts].join("/"), relative };
}

/** Lines of `text` (a last line without a newline counts). */
export function countLines(text) {
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}
