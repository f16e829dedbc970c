import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudDouble, type RecordedRequest } from '../cloud-double/cloud-double.js';
import { type AgentProcess, daemonEnv, startAgent } from '../e2e/agent-process.js';
import { AdbServer } from '../sim/adb-server.js';
import { loadProfile, withSerial } from '../sim/profile.js';
import { FRAMEWORK_COMMANDS, SimDevice } from '../sim/sim-device.js';
import { devicesOf } from '../support/reports.js';

// Issue 42: a phone whose framework commands (dumpsys, settings, pm, wm, cmd)
// answer 3 s late while getprop answers at once, on a 20 s schedule with the
// default probe timeout (20 s), was absent from every report until its first
// inventory ended: the first report, and the one another phone's plug caused.
// adb listed it as `device` from the first second. Its property dump is the
// first section of that inventory and arrives at once: from it the agent
// knows who the phone is long before the framework commands answer. Every
// report is checked, from the very first one.

const adb = new AdbServer();
const slow = new SimDevice({
  profile: withSerial(loadProfile('pixel-sailfish-android10'), 'SLOWPHONE3'),
  slowCommands: { names: FRAMEWORK_COMMANDS, ms: 3_000 },
});
const fresh = new SimDevice({ profile: withSerial(loadProfile('pixel-8-pro'), 'PLUGGED003') });
const cloud = new CloudDouble();
let agent: AgentProcess;

beforeAll(async () => {
  await adb.start();
  await cloud.start();
  await adb.connect(await slow.start());
  agent = startAgent(['run'], daemonEnv(adb.env, cloud, { DEVICE_AGENT_SCHEDULE: '*/20 * * * * *' }));
}, 60_000);

afterAll(async () => {
  await agent?.stop('SIGKILL').catch(() => undefined);
  await adb.stop();
  await Promise.all([slow.stop(), fresh.stop(), cloud.stop()]);
});

const slowIn = (r: RecordedRequest) => devicesOf(r).find((d) => d.udid === 'SLOWPHONE3');
/** Its first inventory has ended (whole, or cut at the deadline with what it read). */
const inventoried = (r: RecordedRequest) => {
  const d = slowIn(r);
  return d !== undefined && (d.status === 'AVAILABLE' || /did not finish within/.test(d.message ?? ''));
};

describe('faults: a slow phone from the first report', () => {
  it('is in every report from the first one, the one another phone’s plug caused included, with its identity and "not finished yet" until its inventory ends', async () => {
    const first = await cloud.waitForPut(() => true, 60_000);
    // Plugged while the slow phone's first inventory still runs (it takes the whole 20 s deadline).
    await adb.connect(await fresh.start());
    const plugged = await cloud.waitForPut((r) => devicesOf(r).some((d) => d.udid === 'PLUGGED003' && d.modelName !== undefined), 30_000);
    const done = await cloud.waitForPut(inventoried, 90_000);
    const reports = cloud.putRequests().filter((r) => r.receivedAt <= done.receivedAt);
    expect(reports[0]).toBe(first);
    const seen = reports.map((r) => {
      const d = slowIn(r);
      return d && { state: d.state, status: d.status, model: d.modelName, message: d.message };
    });
    const said = JSON.stringify(seen);
    // In every report, from the first: adb's state and who it is (its model from its properties).
    for (const d of seen) {
      expect(d, said).toBeDefined();
      expect(d!.state, said).toBe('device');
      expect(d!.model, said).toBe('Pixel');
    }
    // Until its inventory ended, it says so, in the words of a phone not yet read (not "replug it").
    const before = reports.filter((r) => !inventoried(r)).map((r) => slowIn(r)!);
    expect(before.length, said).toBeGreaterThanOrEqual(2);
    expect(before.map((r) => r.status)).toEqual(before.map(() => 'UNAVAILABLE'));
    for (const d of before) expect(d.message, said).toMatch(/^the inventory of the device has not finished yet/);
    for (const d of seen) expect(d!.message ?? '', said).not.toMatch(/replug|reboot/i);
    // The report the plug caused carried both phones.
    expect(plugged.receivedAt).toBeLessThan(done.receivedAt);
    expect(slowIn(plugged), said).toBeDefined();
  }, 180_000);
});
