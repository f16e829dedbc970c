import { describe, expect, it } from 'vitest';
import { StatusLine, waitingFor, type Terminal } from '../../src/cli/progress.js';
import { DoctorWait } from '../../src/cli/doctor-wait.js';
import type { DoctorAdb } from '../../src/doctor/checks.js';

// Issue 61, 7: on a terminal, `list` and `doctor` say what they wait for, on
// one line at the foot of stderr; off a terminal they say nothing more. The
// commands under a real pseudo-terminal: test/e2e/waiting-terminal.test.ts.

const CLEAR = '\r\u001b[K';

function terminal(columns = 60): Terminal & { text: string } {
  const t = { text: '', isTTY: true, columns, write: (s: string) => ((t.text += s), true) };
  return t;
}

describe('StatusLine', () => {
  it('is drawn only on a terminal that can rewrite a line', () => {
    expect(StatusLine.onTerminal({ write: () => true }, {})).toBeUndefined();
    expect(StatusLine.onTerminal({ write: () => true, isTTY: false }, {})).toBeUndefined();
    expect(StatusLine.onTerminal(terminal(), { TERM: 'dumb' })).toBeUndefined();
    expect(StatusLine.onTerminal(terminal(), { TERM: 'xterm-256color' })).toBeInstanceOf(StatusLine);
  });

  it('rewrites its line in place as the wait changes, writes a log line above it and draws it again, and leaves a clean line when done', () => {
    const out = terminal();
    const line = StatusLine.onTerminal(out, {})!;
    let waiting: string | undefined = 'waiting 0 s for 1 phone';
    line.follow(() => waiting);
    expect(out.text).toBe(`${CLEAR}waiting 0 s for 1 phone`);
    line.draw();
    expect(out.text).toBe(`${CLEAR}waiting 0 s for 1 phone`);
    waiting = 'waiting 1 s for 1 phone';
    line.draw();
    line.write('WARN: the phone did not answer\n');
    expect(out.text).toBe(`${CLEAR}waiting 0 s for 1 phone${CLEAR}waiting 1 s for 1 phone${CLEAR}WARN: the phone did not answer\nwaiting 1 s for 1 phone`);
    out.text = '';
    line.done();
    expect(out.text).toBe(CLEAR);
    // After it, a log line is written as it is.
    out.text = '';
    line.write('INFO: done\n');
    expect(out.text).toBe('INFO: done\n');
  });

  it("keeps a phone's own text from running on the terminal, and within the terminal's width so it can be rewritten", () => {
    const out = terminal(20);
    const line = StatusLine.onTerminal(out, {})!;
    line.follow(() => 'A\u001b]0;owned\u0007B waiting for a long time indeed');
    line.done();
    const drawn = out.text.split(CLEAR)[1]!;
    expect(drawn).not.toMatch(/[\u0000-\u001f]/);
    expect(drawn).toContain('A\ufffd');
    expect([...drawn]).toHaveLength(19);
    expect(drawn.endsWith('…')).toBe(true);
  });

  it('names the first few of what it waits for', () => {
    expect(waitingFor(1, "phone's inventory", "phones' inventories", ['R58M1234'])).toBe("1 phone's inventory (R58M1234)");
    expect(waitingFor(5, 'phone', 'phones', ['A', 'B', 'C', 'D', 'E'])).toBe('5 phones (A, B, C, … 2 more)');
  });
});

describe("DoctorWait: the doctor's checks still running", () => {
  it('names the phones whose shell has not answered in place of the adb check that waits on them, then the other checks, until all settle', async () => {
    const wait = new DoctorWait(15);
    const answers = new Map<string, () => void>();
    const adb: DoctorAdb = {
      label: 'tcp:127.0.0.1:5037',
      version: async () => 41,
      listDevices: async () => [],
      shell: (serial) => new Promise((done) => answers.set(serial, () => done({ output: '' }))),
    };
    const watched = wait.adb(adb, 'the adb server');
    let cloud!: () => void;
    const checks = [
      wait.check('the adb server', Promise.all([watched.shell('HUNG01', 'getprop', { timeoutMs: 1 }), watched.shell('OK02', 'getprop', { timeoutMs: 1 })])),
      wait.check('the cloud', new Promise<void>((done) => (cloud = done))),
    ];
    expect(wait.text()).toBe("checking 0 s: 2 phones' shells (HUNG01, OK02), at most 15 s; the cloud");
    answers.get('OK02')!();
    cloud();
    await new Promise((r) => setImmediate(r));
    expect(wait.text()).toBe("checking 0 s: 1 phone's shell (HUNG01), at most 15 s");
    answers.get('HUNG01')!();
    await Promise.all(checks);
    expect(wait.text()).toBeUndefined();
  });
});
