// Reading the workspace through WASI: warden opens each workspace root to the plugin at its own
// path (a resolver always, read-only; a tool plugin when its entry grants `fs`). The engine has
// no `fs` module: these two functions use `wasi:filesystem`, which `wit/js-fs.wit` adds to the
// world (the WIT it needs is in `wit/deps/`). A failure throws `{ code, message }`, where `code`
// is the WASI error code (`no-entry`, `access`, ...).

import { getDirectories } from "wasi:filesystem/preopens@0.2.12";

const failure = (path, err) => {
  const code = typeof err?.payload === "string" ? err.payload : String(err?.payload ?? err);
  return { code, message: `${path}: ${code}` };
};

/** The preopened directory holding absolute `full`, and the path below it. */
function locate(full) {
  let best = null;
  for (const [dir, at] of getDirectories()) {
    const prefix = at.endsWith("/") ? at : `${at}/`;
    if ((full === at || full.startsWith(prefix)) && (best === null || at.length > best.at.length)) {
      best = { dir, at };
    }
  }
  if (best === null) throw { code: "access", message: `${full}: not opened to the plugin` };
  const rest = full.slice(best.at.length).replace(/^\/+/, "");
  return { dir: best.dir, rest: rest === "" ? "." : rest };
}

function open(full, directory) {
  const { dir, rest } = locate(full);
  return dir.openAt(
    { symlinkFollow: true },
    rest,
    directory ? { directory: true } : {},
    { read: true },
  );
}

/** The bytes of file `full` (an absolute path). */
export function readBytes(full) {
  let file;
  try {
    file = open(full, false);
  } catch (err) {
    throw failure(full, err);
  }
  const parts = [];
  let offset = 0n;
  let total = 0;
  for (;;) {
    let read;
    try {
      read = file.read(65536n, offset);
    } catch (err) {
      throw failure(full, err);
    }
    const [chunk, end] = read;
    parts.push(chunk);
    total += chunk.length;
    offset += BigInt(chunk.length);
    if (end || chunk.length === 0) break;
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}

/** The entries of directory `full` (an absolute path): `{ name, directory }`. */
export function readDir(full) {
  const entries = [];
  try {
    const stream = open(full, true).readDirectory();
    for (let entry = stream.readDirectoryEntry(); entry; entry = stream.readDirectoryEntry()) {
      entries.push({ name: entry.name, directory: entry.type === "directory" });
    }
  } catch (err) {
    throw failure(full, err);
  }
  return entries;
}
