import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DaemonBed } from './daemon-bed.js';
import { baseEnv } from './agent-process.js';

// Issue 42, 8c: `list` on a terminal wrote its log lines (pino-pretty)
// coloured although NO_COLOR=1, while its table honoured it. script(1) gives
// the agent a pseudo-terminal, as an operator's shell does. (The escaping of
// a phone's text in those lines is test/log/logger-terminal.test.ts: no log
// line of `list` carries a phone's own text to put here.)

const bed = new DaemonBed('pixel-8-pro');
const bin = resolve(fileURLToPath(import.meta.url), '../../../bin/device-agent.js');

beforeAll(() => bed.start());
afterAll(() => bed.stop());

/** `device-agent list` under a pseudo-terminal; stdout and stderr both reach it. Not spawnSync: the simulated phones answer from this process. */
function listOnTerminal(extra: Record<string, string>): Promise<string> {
  return new Promise((done) => {
    const env = baseEnv({ ...bed.adb.env, DEVICE_AGENT_LOG_FORMAT: 'auto', ...extra });
    const child = spawn('script', ['-qec', `${process.execPath} ${bin} list`, '/dev/null'], { env });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('close', () => done(out));
  });
}

describe('list on a terminal', () => {
  it('writes its log lines without colour under NO_COLOR, and its table shows a U+202E as U+FFFD', async () => {
    await bed.plug('EVIL\u202Egnp.exe', { props: { 'ro.product.model': 'Pix\u202Eel' } });
    await bed.plug('LOCKED01', { mode: 'unauthorized' });
    // A variable the agent does not know: a warning, a log line on the terminal (a phone's own problems are its row's, not log lines: issue 61).
    const plain = await listOnTerminal({ NO_COLOR: '1', DEVICE_AGENT_NOT_A_SETTING: 'x' });
    expect(plain).toMatch(/WARN.*DEVICE_AGENT_NOT_A_SETTING/);
    expect(plain).not.toMatch(/WARN.*is unauthorized/);
    expect(plain).toContain('Pix\ufffdel');
    expect(plain).not.toContain('\u202E');
    // No colour: not on the log lines, the table nor the status line (which moves the cursor, but paints nothing).
    expect(plain.replaceAll('\r\u001b[K', '')).not.toContain('\u001b[');
    // Without NO_COLOR the same line is coloured: it is pino-pretty's, on a terminal.
    expect(await listOnTerminal({ DEVICE_AGENT_NOT_A_SETTING: 'x' })).toMatch(/\u001b\[\d+mWARN/);
  }, 60_000);
});
