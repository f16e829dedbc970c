/**
 * Calls fn once things settle: `wait` ms after the last trigger, but never
 * later than `maxWait` ms after the first, so that a flapping cable gives one
 * call and a steady stream of events still gets reported promptly.
 */
export class Debouncer {
  private timer: NodeJS.Timeout | undefined;
  private firstAt: number | undefined;

  constructor(
    private readonly wait: number,
    private readonly maxWait: number,
    private readonly fn: () => void,
  ) {}

  trigger(): void {
    const now = Date.now();
    this.firstAt ??= now;
    const delay = Math.max(0, Math.min(this.wait, this.firstAt + this.maxWait - now));
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fire(), delay);
  }

  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.firstAt = undefined;
  }

  private fire(): void {
    this.timer = undefined;
    this.firstAt = undefined;
    this.fn();
  }
}
