import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DaemonBed } from './daemon-bed.js';
import { daemonEnv, runAgent } from './agent-process.js';
import { checkOf, doctorJson } from './doctor-checks.js';

// Issue 61, 7 and 9: `list` with one hung phone printed nothing for 21 s, `doctor`
// nothing until it finished, and the doctor had no --json. On a terminal (script(1) gives the agent a
// pseudo-terminal, as an operator's shell does) each says what it waits for,
// naming the hung phone; through a pipe (a script, cron) nothing more.

const bed = new DaemonBed('pixel-8-pro');
const bin = resolve(fileURLToPath(import.meta.url), '../../../bin/device-agent.js');
let hung = '';
// The hung phone is given up after 4 s (list's inventory, doctor's shell): the test waits that long, not 20 s.
const env = () => daemonEnv(bed.adb.env, bed.cloud, { DEVICE_AGENT_PROBE_TIMEOUT_SECONDS: '4', DEVICE_AGENT_LOG_FORMAT: 'auto', TERM: 'xterm' });

beforeAll(async () => {
  await bed.start();
  await bed.plug('READY001');
  // Its shell opens and never answers: the inventory and the doctor's getprop wait for their deadline.
  hung = (await bed.plug('HUNG0002', { hangOn: /./ })).serial;
}, 60_000);
afterAll(() => bed.stop());

/** The command under a pseudo-terminal; stdout and stderr both reach it. Not spawnSync: the simulated phones answer from this process. */
function onTerminal(command: string, extra: Record<string, string> = {}): Promise<string> {
  return new Promise((done) => {
    const child = spawn('script', ['-qec', `${process.execPath} ${bin} ${command}`, '/dev/null'], { env: { ...env(), ...extra } });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('close', () => done(out));
  });
}

const CLEAR = '\r\u001b[K';

describe('what a one-shot command waits for', () => {
  it("list on a terminal names the hung phone's inventory it waits for, with the time so far and its limit, and clears the line before the table", async () => {
    const out = await onTerminal('list');
    expect(out).toContain(`${CLEAR}listing devices: tcp:`);
    expect(out).toMatch(new RegExp(`\\r\\u001b\\[Kwaiting [1-4] s for 1 phone's inventory \\(${hung.replace(/\./g, '\\.')}\\), at most 4 s`));
    // The line is gone before the table: its header starts a clean line.
    expect(out).toMatch(/\r\u001b\[K(\r?\n)*SERIAL/);
  }, 60_000);

  it('doctor on a terminal names the phone whose shell it waits for, and the checklist starts on a clean line', async () => {
    const out = await onTerminal('doctor');
    expect(out).toMatch(new RegExp(`\\r\\u001b\\[Kchecking [0-4] s: 1 phone's shell \\(${hung.replace(/\./g, '\\.')}\\), at most 4 s`));
    expect(out).toMatch(
      new RegExp(`\\r\\u001b\\[K(\\r?\\n)*(\\u001b\\[\\d+m)?\\[WARN\\](\\u001b\\[\\d+m)? device ${hung.replace(/\./g, '\\.')}: device, but its shell failed`),
    );
  }, 60_000);

  it('doctor asks the programs the settings name beside the phones, not before them: it waits for both at once', async () => {
    // A stand-in pymobiledevice3 that prints what `pymobiledevice3 version` prints (test/features/ios-developer/fixtures/SOURCES.md) after 3 s.
    const tools = mkdtempSync(join(tmpdir(), 'doctor-tools-'));
    const version = fileURLToPath(new URL('../features/ios-developer/fixtures/pymobiledevice3-version.txt', import.meta.url));
    writeFileSync(join(tools, 'pymobiledevice3'), `#!/bin/sh\nsleep 3\ncat '${version}'\n`, { mode: 0o755 });
    const out = await onTerminal('doctor', { PATH: `${tools}:${process.env.PATH ?? '/usr/bin:/bin'}` });
    expect(out).toMatch(new RegExp(`checking [0-4] s: 1 phone's shell \\(${hung.replace(/\./g, '\\.')}\\), at most 4 s; the programs`));
  }, 60_000);

  it('through a pipe, neither writes a status line: stderr has the log lines only, stdout the table or the checklist', async () => {
    const [list, doctor] = await Promise.all([runAgent(['list'], env()), runAgent(['doctor'], env())]);
    for (const run of [list, doctor]) {
      expect(run.stderr).not.toContain('\u001b[K');
      expect(run.stderr).not.toMatch(/waiting \d+ s|checking \d+ s/);
    }
    expect(list.stdout.split('\n')[0]).toMatch(/^SERIAL/);
    // The hung phone's problem once: no_inventory in its row, why under the table (not adb's state, which says "device"), no log line.
    expect(list.stdout.split('\n').find((l) => l.startsWith(hung))).toMatch(/\sno_inventory$/);
    expect(list.stdout).toContain(`\n${hung}: its inventory failed before it said who it is (device ${hung} did not finish its shell session within 4000 ms`);
    expect(list.stderr).not.toContain(hung);
    expect(doctor.stdout.split('\n')[0]).toMatch(new RegExp(`^\\[WARN\\] device ${hung.replace(/\./g, '\\.')}: device, but its shell failed`));
  }, 60_000);
});

describe('doctor --json (issue 61)', () => {
  it('prints the checklist as JSON for a script: every check by id, the hung phone a warning of its own, what its shell did not tell unread, and the exit code it returns', async () => {
    const run = await runAgent(['doctor', '--json'], env());
    const out = doctorJson(run.stdout);
    expect(out.exitCode).toBe(run.code);
    expect(checkOf(run.stdout, 'config')).toMatchObject({ status: 'ok', finding: expect.stringMatching(/^configuration valid/) });
    expect(checkOf(run.stdout, 'phone', hung)).toMatchObject({
      status: 'warn',
      finding: expect.stringMatching(/: device, but its shell failed/),
      advice: expect.any(String),
    });
    const unread = out.checks.filter((c) => c.phone === hung && c.status === 'unread');
    expect(unread.map((c) => c.id)).toEqual(['phone.battery', 'phone.wear', 'phone.readiness']);
    for (const c of unread) expect(c.finding).toMatch(new RegExp(`^device ${hung.replace(/\./g, '\\.')}: \\w+ unread: its shell failed: `));
    expect(out.warnings).toBe(out.checks.filter((c) => c.status === 'warn').length);
    expect(run.stdout).not.toContain(bed.cloud.apiKey);
  }, 60_000);
});
