/**
 * Wall time per named phase of one piece of work, summed over repeats, for a log line that says
 * where the time went. Kept out of records: they must be the same bytes on every run.
 */
export class PhaseClock {
  private readonly totals = new Map<string, number>();

  async time<T>(phase: string, run: () => Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await run();
    } finally {
      this.totals.set(phase, (this.totals.get(phase) ?? 0) + performance.now() - start);
    }
  }

  /** Milliseconds per phase, in the order the phases first ended. */
  phases(): [string, number][] {
    return [...this.totals];
  }

  /** `phase 12.3 s, other 0.4 s`, in the order the phases first ended. */
  summary(): string {
    return [...this.totals].map(([phase, ms]) => `${phase} ${(ms / 1000).toFixed(1)} s`).join(', ');
  }
}
