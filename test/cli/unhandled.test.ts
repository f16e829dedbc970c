import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { logUnhandledRejections } from '../../src/cli/unhandled.js';
import { captureLogger } from '../log/capture.js';

describe('an unhandled rejection in the daemon', () => {
  it('is one error line blaming the agent, with the error and whom to tell; nothing is thrown', () => {
    const { logger, lines } = captureLogger();
    const proc = new EventEmitter();
    logUnhandledRejections(logger, proc);
    expect(() => proc.emit('unhandledRejection', new Error('cannot read properties of undefined'), Promise.resolve())).not.toThrow();
    proc.emit('unhandledRejection', 'a string, not an Error', Promise.resolve());
    const said = lines().filter((l) => String(l.msg).startsWith('unexpected failure (unhandled rejection)'));
    expect(said.map((l) => [l.level, l.err])).toEqual([
      ['error', 'cannot read properties of undefined'],
      ['error', 'a string, not an Error'],
    ]);
    expect(said[0]!.msg).toBe(
      "unexpected failure (unhandled rejection): a bug in the agent, not a fault of the phones, the adb server or the cloud; the agent keeps running; report it to the agent's maintainers with this line",
    );
  });
});
