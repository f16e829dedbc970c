import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DaemonBed } from './daemon-bed.js';
import { devicesOf } from '../support/reports.js';

// The state directory as other versions, editors and crashes leave it, with
// the daemon run as the operator runs it. (Full disk and read-only: the unit
// tests of test/report/reported-store.e2e.test.ts on a small tmpfs; node-id
// files: test/config/node-id.test.ts.)

const bed = new DaemonBed('pixel-8-pro');
const { cloud } = bed;

beforeAll(() => bed.start());
afterEach(() => bed.reset());
afterAll(() => bed.stop());

describe('a reported-devices.json that is JSON but not what this version writes', () => {
  it('(a newer version, a hand edit) its gone devices go out once as UNPLUGGED, in records the cloud takes; before, every report was refused with 400', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'da-state-'));
    writeFileSync(
      join(stateDir, 'reported-devices.json'),
      JSON.stringify({
        savedAt: '2031-01-01T00:00:00.000Z',
        devices: [
          // A field this version does not know, one whose type changed, and a control character.
          {
            udid: 'GONE0001',
            serialNumber: 'GONE0001',
            state: 'device',
            status: 'AVAILABLE',
            platformName: 'ANDROID',
            isAndroid: true,
            isIos: false,
            modelName: 'Pixel\u00078',
            chargerWatts: 18,
            battery: { percentage: 80 },
          },
          { udid: 42, state: 'device' },
          'not a device',
        ],
      }),
    );
    await bed.plug('STAY0001');
    const a = bed.run({ DEVICE_AGENT_STATE_DIR: stateDir });
    const first = await cloud.waitForPut((r) => devicesOf(r).some((d) => d.udid === 'GONE0001'), 35_000);
    expect(first.answer?.status).toBe(200);
    expect(devicesOf(first).find((d) => d.udid === 'GONE0001')).toEqual({
      udid: 'GONE0001',
      serialNumber: 'GONE0001',
      state: 'unplugged',
      status: 'UNPLUGGED',
      platformName: 'ANDROID',
      isAndroid: true,
      isIos: false,
      modelName: 'Pixel\ufffd8',
    });
    // Delivered once, then left out; the file now holds only what is present.
    const t0 = Date.now();
    a.child.kill('SIGHUP');
    const next = await cloud.waitForPut((r) => r.receivedAt >= t0, 15_000);
    expect(devicesOf(next).map((d) => d.udid)).toEqual(['STAY0001']);
    expect(
      (JSON.parse(readFileSync(join(stateDir, 'reported-devices.json'), 'utf8')) as { devices: Array<{ udid: string }> }).devices.map((d) => d.udid),
    ).toEqual(['STAY0001']);
  }, 60_000);

  it('a file of 64 MiB is not read into memory: one warning, a start without it', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'da-state-'));
    writeFileSync(join(stateDir, 'reported-devices.json'), `{"devices":[${'{"udid":"X","state":"device"},'.repeat(2 ** 21)}{"udid":"Y","state":"device"}]}`);
    await bed.plug('STAY0011');
    const a = bed.run({ DEVICE_AGENT_STATE_DIR: stateDir });
    const first = await cloud.waitForPut(() => true, 20_000);
    expect(devicesOf(first).map((d) => d.udid)).toEqual(['STAY0011']);
    const warned = await a.waitForLog((l) => l.level === 'warn' && String(l.file).endsWith('reported-devices.json'));
    expect(String(warned.msg)).toMatch(/is \d+ bytes, more than the agent writes .*may stay online in the cloud/);
  }, 60_000);
});

describe('a FIFO in place of a state file (issue 33: it hung the start for good)', () => {
  it('at reported-devices.json: one warning naming it, and the daemon starts and reports without it', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'da-state-'));
    execFileSync('mkfifo', [join(stateDir, 'reported-devices.json')]);
    await bed.plug('FIFO0001');
    const a = bed.run({ DEVICE_AGENT_STATE_DIR: stateDir });
    const first = await cloud.waitForPut(() => true, 20_000);
    expect(devicesOf(first).map((d) => d.udid)).toEqual(['FIFO0001']);
    const warned = await a.waitForLog((l) => l.level === 'warn' && String(l.file).endsWith('reported-devices.json'));
    expect(String(warned.msg)).toMatch(/reported-devices\.json is a FIFO, not a regular file; .*remove it; devices unplugged/);
  }, 60_000);

  it('at node-id: a configuration error (exit 2) in one line naming it, at once', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'da-state-'));
    execFileSync('mkfifo', [join(stateDir, 'node-id')]);
    const a = bed.run({ DEVICE_AGENT_STATE_DIR: stateDir, DEVICE_AGENT_NODE_ID: '' });
    const end = await a.exited(15_000);
    expect(end.code).toBe(2);
    expect(end.stderr).toMatch(/node-id is a FIFO, not a regular file; the agent keeps its state only in regular files: remove it/);
  }, 60_000);
});
