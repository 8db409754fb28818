// The hook's logic, apart from the WIT glue in app.js so that `node --test` checks it without
// building the component: count events by kind; at the end of every turn, a summary.

export class Counts {
  constructor() {
    this.counts = new Map();
  }

  /** Count one event of `kind` (the WIT case, e.g. `tool-ran`); the summary at turn end. */
  count(kind) {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
    if (kind !== "turn-ended") return null;
    const parts = [...this.counts.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, n]) => `${k}=${n}`);
    return `event counts: ${parts.join(" ")}`;
  }
}
