import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, runAgent } from './agent-process.js';
import { DaemonBed, scrapeMetrics } from './daemon-bed.js';
import { devicesOf } from '../support/reports.js';

// Issue 35, finding 2: a device name is settable by any shell user of the
// phone (`settings put global device_name`), with no length limit. One phone
// with a 4 MiB name made every PUT /devices of its host 5.4 MB; behind
// nginx's default 1 MiB body limit every report got 413 and no phone of the
// host was reported. The same value swelled the state file, /metrics and list.

const MIB = 1024 * 1024;
const bed = new DaemonBed('pixel-8-pro', { maxBodyBytes: MIB });
const { cloud } = bed;

beforeAll(() => bed.start());
afterEach(() => bed.reset());
afterAll(() => bed.stop());

describe('a phone whose device_name is 4 MiB, behind a cloud with a 1 MiB body limit', () => {
  it('is reported clipped and named, every other phone beside it; the state file, /metrics and list stay small', async () => {
    await bed.plug('PLAIN001');
    await bed.plug('PLAIN002');
    await bed.plug('BIGNAME1', { settings: { device_name: 'N'.repeat(4 * MIB) } });
    const stateDir = mkdtempSync(join(tmpdir(), 'da-limits-'));
    const agent = bed.run({ DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0', DEVICE_AGENT_STATE_DIR: stateDir });

    const put = await cloud.waitForPut((r) => r.answer?.status === 200 && devicesOf(r).length === 3, 60_000);
    expect(put.rawBody.length).toBeLessThan(MIB);
    const big = devicesOf(put).find((d) => d.udid === 'BIGNAME1') as unknown as { deviceName: string; message: string };
    expect(big.deviceName.length).toBeLessThanOrEqual(256);
    expect(big.deviceName.startsWith('NNNN')).toBe(true);
    expect(big.message).toMatch(/clipped: deviceName/);
    expect(
      devicesOf(put)
        .map((d) => d.udid)
        .sort(),
    ).toEqual(['BIGNAME1', 'PLAIN001', 'PLAIN002']);
    expect(cloud.requests.filter((r) => r.answer?.status === 413)).toHaveLength(0);

    const clipped = agent.logs().filter((l) => typeof l.msg === 'string' && l.msg.includes('gave values longer than the agent sends'));
    expect(clipped).toHaveLength(1);
    expect(clipped[0]!.msg).toMatch(/BIGNAME1.*deviceName/);

    const state = join(stateDir, 'reported-devices.json');
    expect(statSync(state).size).toBeLessThan(64 * 1024);
    expect(readFileSync(state, 'utf8')).not.toMatch(/N{300}/);

    const metrics = await scrapeMetrics(agent);
    expect(metrics.length).toBeLessThan(256 * 1024);
    expect(metrics).not.toMatch(/N{300}/);
    expect(Math.max(...metrics.split('\n').map((l) => l.length))).toBeLessThan(4096);

    // Every line of output, however long the name, is bounded.
    const list = await runAgent(['list'], baseEnv({ ...bed.adb.env }));
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/BIGNAME1/);
    expect(Math.max(...list.stdout.split('\n').map((l) => l.length))).toBeLessThan(4096);
    const json = await runAgent(['list', '--json'], baseEnv({ ...bed.adb.env }));
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout.length).toBeLessThan(64 * 1024);
    expect(json.stdout).not.toMatch(/N{300}/);
  }, 120_000);
});
