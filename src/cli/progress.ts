// What a one-shot command is waiting for, on a terminal: one line at the foot of stderr, rewritten in place, with log
// lines going above it. Off a terminal, or on TERM=dumb, nothing is written.
import { Writable } from 'node:stream';
import type { Sink } from '../log/logger.js';
import { terminalText } from '../report/clean-strings.js';

/** The stream the line is drawn on: stderr, or a test's stand-in. */
export interface Terminal extends Sink {
  columns?: number;
}

/** What is being waited for now, as one line; undefined while nothing is. */
export type Waiting = () => string | undefined;

const CLEAR = '\r\u001b[K';
const REDRAW_MS = 250;

/** A stream (pino-pretty pipes into one) that writes the log's lines above the status line. */
export class StatusLine extends Writable implements Sink {
  private shown = '';
  private timer: NodeJS.Timeout | undefined;
  private waiting: Waiting | undefined;

  /** A line on `out` when it is a terminal that can rewrite one; undefined otherwise. */
  static onTerminal(out: Terminal, env: NodeJS.ProcessEnv) {
    return out.isTTY === true && env.TERM !== 'dumb' ? new StatusLine(out) : undefined;
  }

  /** A terminal's: the logger colours its lines, as on stderr itself. */
  readonly isTTY = true;

  private constructor(private readonly out: Terminal) {
    super({ decodeStrings: false });
  }

  /** A log line: above the status line, which is drawn again under it. */
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: (error?: Error | null) => void) {
    if (this.shown) this.out.write(CLEAR);
    this.out.write(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    if (this.shown) this.out.write(this.shown);
    done();
  }

  /** Shows what `waiting` says, again every 250 ms (its seconds move), until the next follow() or done(). */
  follow(waiting: Waiting) {
    this.waiting = waiting;
    this.draw();
    this.timer ??= setInterval(() => this.draw(), REDRAW_MS).unref();
  }

  /** Nothing more to wait for: the line goes, and the command's own output starts on a clean line. */
  done() {
    clearInterval(this.timer);
    this.timer = undefined;
    this.waiting = undefined;
    if (this.shown) this.out.write(CLEAR);
    this.shown = '';
  }

  /** Draws what is waited for now; exposed for the tests, which draw on their own clock. */
  draw() {
    const text = this.waiting?.();
    // A serial or a model is the phone's own text: no control character of it reaches the terminal.
    const line = text === undefined ? '' : fit(terminalText(text), (this.out.columns || 80) - 1);
    if (line === this.shown) return;
    this.out.write(CLEAR + line);
    this.shown = line;
  }
}

/** At most `width` characters, "…" marking the cut: a status line that wraps cannot be rewritten in place, a table cell must not make its row a megabyte. */
export function fit(text: string, width: number) {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, Math.max(0, width - 1)).join('')}…`;
}

/** "3 phones' inventories (R58M1234, XIAOMI01, PIXEL001)", naming the first few. */
export function waitingFor(count: number, one: string, many: string, names: readonly string[]) {
  const listed = names.slice(0, 3).join(', ') + (names.length > 3 ? `, … ${names.length - 3} more` : '');
  return `${count} ${count === 1 ? one : many}${listed ? ` (${listed})` : ''}`;
}
