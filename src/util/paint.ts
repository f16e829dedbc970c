// Terminal colour for what people read (the list table, the doctor's checklist, log lines on a terminal): only on a
// terminal, and never when NO_COLOR (no-color.org) or TERM=dumb says no. Node's util.styleText writes the colours;
// whether to colour is decided here, from the stream and the environment the command was given (so that the table, the
// checklist and pino-pretty's lines decide alike, and a test can give its own), hence validateStream: false.
import { styleText } from 'node:util';

export interface Paint {
  ok(text: string): string;
  warn(text: string): string;
  bad(text: string): string;
}

export const noPaint: Paint = { ok: (t) => t, warn: (t) => t, bad: (t) => t };
export const ansiPaint: Paint = {
  ok: (t) => styleText('green', t, { validateStream: false }),
  warn: (t) => styleText('yellow', t, { validateStream: false }),
  bad: (t) => styleText('red', t, { validateStream: false }),
};

/** Whether a stream gets colour: a terminal, and neither NO_COLOR (set and not empty) nor TERM=dumb says no. */
export function colourWanted(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv) {
  return stream.isTTY === true && !env.NO_COLOR && env.TERM !== 'dumb';
}

/** The paint for an output stream: colour on a terminal that wants it, none otherwise. */
export function paintFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv) {
  return colourWanted(stream, env) ? ansiPaint : noPaint;
}
