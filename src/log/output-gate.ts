// Node writes to a pipe asynchronously and keeps in memory whatever the reader has not taken yet, without limit: a log
// reader that stalls (a hung `tee`, a paused pager, a blocked log driver) would grow the daemon by every line it
// writes, for as long as it stalls. A reader that went away leaves a destroyed stream. This gate lets a line through
// only when the output is alive and holds less than `maxBufferedBytes`; the lines it drops are counted, so that the
// first line after a stall says how many were lost.

/** The parts of a writable stream the gate reads. */
export interface GatedOutput {
  writableLength?: number;
  destroyed?: boolean;
  writableEnded?: boolean;
}

/** About 5,000 log lines: far more than any burst the agent writes, little memory. */
const DEFAULT_MAX_BUFFERED_BYTES = 1024 * 1024;

export class OutputGate {
  private dropped = 0;

  constructor(
    private readonly output: GatedOutput,
    private readonly maxBufferedBytes = DEFAULT_MAX_BUFFERED_BYTES,
  ) {}

  /** Whether a line may be written now; one that may not is counted as dropped. */
  open() {
    const { output } = this;
    if (output.destroyed || output.writableEnded || (output.writableLength ?? 0) > this.maxBufferedBytes) {
      this.dropped++;
      return false;
    }
    return true;
  }

  /** Lines dropped since the last call. */
  takeDropped() {
    const n = this.dropped;
    this.dropped = 0;
    return n;
  }
}
