import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudDouble } from '../cloud-double/cloud-double.js';
import { type AgentProcess, daemonEnv, startAgent } from '../e2e/agent-process.js';
import { AdbServer } from '../sim/adb-server.js';
import { loadProfile, withSerial } from '../sim/profile.js';
import { FRAMEWORK_COMMANDS, SimDevice } from '../sim/sim-device.js';

// Issue 36, finding 2: a phone whose framework commands (dumpsys, settings,
// pm, wm, cmd) answer 3 s late while getprop answers at once, on a 20 s
// schedule, was missing or present without its model or state in 2 of 6
// reports after the first delivered one. Once the agent knows who it is, it
// is in every report: with its last known fields, and a message while the
// rest is still being read. The probe deadline is 4 s here, so that most
// inventories are cut. On this project's 2-core host at a load average of
// about 7 this test passed with and without the fix (the cut inventories
// kept the model from their cached property dump); the load of 20 the issue
// saw was not reproduced. The fix is shown failing-before by
// test/platforms/android/source.test.ts (a cut inventory without the model);
// this one guards the end-to-end promise.

const REPORTS = 6;
const adb = new AdbServer();
const slow = new SimDevice({
  profile: withSerial(loadProfile('pixel-sailfish-android10'), 'SLOWPHONE2'),
  slowCommands: { names: FRAMEWORK_COMMANDS, ms: 3_000 },
});
const cloud = new CloudDouble();
let agent: AgentProcess;

beforeAll(async () => {
  await adb.start();
  await cloud.start();
  await adb.connect(await slow.start());
  agent = startAgent(['run'], daemonEnv(adb.env, cloud, { DEVICE_AGENT_SCHEDULE: '*/20 * * * * *', DEVICE_AGENT_PROBE_TIMEOUT_SECONDS: '4' }));
}, 60_000);

afterAll(async () => {
  await agent?.stop('SIGKILL').catch(() => undefined);
  await adb.stop();
  await Promise.all([slow.stop(), cloud.stop()]);
});

type Device = { udid: string; status: string; state: string; message?: string; modelName?: string };
const devicesOf = (body: unknown): Device[] => (body as { devices: Device[] }).devices;

describe('faults: a slow phone in every report', () => {
  it(`is in each of ${REPORTS} reports after the first that carried it, with its model and state, and a message while it is being read`, async () => {
    const carries = (body: unknown) => devicesOf(body).some((d) => d.udid === 'SLOWPHONE2' && d.modelName !== undefined);
    const first = await cloud.waitForPut((r) => r.answer?.status === 200 && carries(r.body), 90_000);
    await cloud.waitForPut(
      (r) => r.receivedAt > first.receivedAt && cloud.putRequests().filter((q) => q.receivedAt > first.receivedAt).length >= REPORTS,
      200_000,
    );
    const after = cloud
      .putRequests()
      .filter((r) => r.receivedAt > first.receivedAt)
      .slice(0, REPORTS);
    const seen = after.map((r) => devicesOf(r.body).find((d) => d.udid === 'SLOWPHONE2'));
    const lacking = seen.filter((d) => d === undefined || d.modelName === undefined || d.state !== 'device');
    expect(lacking, JSON.stringify(seen.map((d) => d && { state: d.state, model: d.modelName, message: d.message }))).toEqual([]);
    // Whatever it is not yet read in full, it says so (never a bare UNAVAILABLE without a word).
    for (const d of seen) if (d!.status !== 'AVAILABLE') expect(d!.message).toBeDefined();
  }, 300_000);
});
