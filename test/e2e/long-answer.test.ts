import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DaemonBed } from './daemon-bed.js';
import { daemonEnv, runAgent } from './agent-process.js';

// Issue 42, 8a: `once` against a cloud that stores the report and answers a
// 200 whose failedDevices names 200,000 udids the report did not carry. It
// said "Maximum call stack size exceeded; nothing went out" and exited 1,
// though the cloud had stored everything.

const bed = new DaemonBed('pixel-8-pro');
const { cloud } = bed;

beforeAll(() => bed.start());
afterEach(() => bed.reset());
afterAll(() => bed.stop());

describe('once against a 200 with 200,000 failedDevices entries', () => {
  it('says the report went out, sums the entries up in one line, and exits 3 (failedDevices)', async () => {
    await bed.plug('LONGANS1');
    cloud.answerFailedDevices(Array.from({ length: 200_000 }, (_, i) => ({ udid: `ELSEWHERE${i}`, message: 'device belongs to another node' })));
    const run = await runAgent(['once'], daemonEnv(bed.adb.env, cloud));
    expect(run.stderr).not.toMatch(/call stack|nothing went out/);
    expect(run.code, run.stderr).toBe(3);
    expect(cloud.putRequests()).toHaveLength(1);
    const logs = run.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string });
    const about = logs.filter((l) => l.msg.includes('did not carry'));
    expect(about).toHaveLength(1);
    expect(about[0]!.msg).toMatch(/named 200000 devices in failedDevices that the report did not carry \(ELSEWHERE0, .* and 199990 more\)/);
  }, 90_000);
});
