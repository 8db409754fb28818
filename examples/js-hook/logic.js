// tool-tally's logic, apart from the WIT glue in app.js so that `node --test` checks it without
// building the component: per turn, which tools ran, which failed and which a plugin or the
// person denied; at the turn's end, one line, a warning when the turn made more calls than
// `warn_after`.

/** The `warn_after` of `config` (a Map; default 10); throws a string saying what is wrong. */
export function warnAfter(config) {
  const text = (config.get("warn_after") ?? "10").trim();
  if (!/^[0-9]+$/.test(text) || Number(text) === 0) {
    throw `config key \`warn_after\` must be a positive whole number, not '${text}'`;
  }
  return Number(text);
}

/** `read_file 2, shell 1`: names in order, each with its count. */
const listed = (counts) =>
  [...counts.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, n]) => `${name} ${n}`)
    .join(", ");

const sum = (counts) => [...counts.values()].reduce((a, b) => a + b, 0);

const bump = (counts, name) => counts.set(name, (counts.get(name) ?? 0) + 1);

/** What the tools did during one turn. */
export class Tally {
  constructor(warnAfter) {
    this.warnAfter = warnAfter;
    this.reset();
  }

  reset() {
    this.ran = new Map();
    this.failed = new Map();
    this.denied = new Map();
  }

  toolRan(name, isError) {
    bump(this.ran, name);
    if (isError) bump(this.failed, name);
  }

  toolDenied(name) {
    bump(this.denied, name);
  }

  /** `[level, line]` for the turn that ended (`info` or `warn`); starts afresh. */
  turnEnded() {
    const calls = sum(this.ran);
    const parts = [calls === 0 ? "tools: none ran" : `tools: ${calls} ran (${listed(this.ran)})`];
    if (this.failed.size > 0) parts.push(`${sum(this.failed)} failed (${listed(this.failed)})`);
    if (this.denied.size > 0) parts.push(`${sum(this.denied)} denied (${listed(this.denied)})`);
    let level = "info";
    if (calls > this.warnAfter) {
      level = "warn";
      parts.push(`more than warn_after = ${this.warnAfter}`);
    }
    this.reset();
    return [level, parts.join("; ")];
  }
}
