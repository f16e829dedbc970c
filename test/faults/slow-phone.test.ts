import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudDouble } from '../cloud-double/cloud-double.js';
import { type AgentProcess, daemonEnv, startAgent } from '../e2e/agent-process.js';
import { AdbServer } from '../sim/adb-server.js';
import { loadProfile, withSerial } from '../sim/profile.js';
import { FRAMEWORK_COMMANDS, SimDevice } from '../sim/sim-device.js';

// A loaded low-end phone answers its framework commands (dumpsys, settings,
// pm, wm, cmd) 3 s late: its first inventory runs into the deadline (8 s
// here, to keep the test short). Another phone plugged meanwhile must be reported within the
// change bound (2 s) plus the report wait (3 s without an answer), not after
// the slow phone's whole deadline; and the slow phone's message says it is
// slow, not to replug it.

const adb = new AdbServer();
const slow = new SimDevice({
  profile: withSerial(loadProfile('pixel-sailfish-android10'), 'SLOWPHONE1'),
  slowCommands: { names: FRAMEWORK_COMMANDS, ms: 3_000 },
});
const fresh = new SimDevice({ profile: withSerial(loadProfile('pixel-8-pro'), 'PLUGGED001') });
const cloud = new CloudDouble();
let agent: AgentProcess;

beforeAll(async () => {
  await adb.start();
  await cloud.start();
  await adb.connect(await slow.start());
  agent = startAgent(['run'], daemonEnv(adb.env, cloud, { DEVICE_AGENT_SCHEDULE: '*/5 * * * * *', DEVICE_AGENT_PROBE_TIMEOUT_SECONDS: '8' }));
  await cloud.waitForPut((r) => r.answer?.status === 200, 60_000);
}, 90_000);

afterAll(async () => {
  await agent?.stop('SIGKILL').catch(() => undefined);
  await adb.stop();
  await Promise.all([slow.stop(), fresh.stop(), cloud.stop()]);
});

type Device = { udid: string; status: string; message?: string; modelName?: string };
const devicesOf = (body: unknown): Device[] => (body as { devices: Device[] }).devices;

describe('faults: one slow phone', () => {
  it('does not delay another phone’s plug news beyond the change bound plus the report wait', async () => {
    // The schedule (every 5 s) keeps a report waiting on the slow phone most of the time.
    await new Promise((r) => setTimeout(r, 6_000));
    const port = await fresh.start();
    const pluggedAt = Date.now();
    await adb.connect(port);
    const put = await cloud.waitForPut(
      (r) => devicesOf(r.body).some((d) => d.udid === 'PLUGGED001' && d.status === 'AVAILABLE' && d.modelName !== undefined),
      30_000,
    );
    // 2 s change bound + 3 s report wait + the new phone's own inventory, with slack for a loaded CI host
    // (before, the report waited out the slow phone's whole deadline).
    expect(put.receivedAt - pluggedAt).toBeLessThan(9_000);
  }, 60_000);

  it('says the slow phone is slow, with the figures of the probe deadline it was given, not to replug it', async () => {
    // The first inventory cut (8 s after the start) is the seam: the daemon's deadline, the prober's message and the report.
    // That a cut inventory keeps what arrived and the next ones ask for the rest, so that every field comes within a few
    // inventories, is the prober's, on the real adb server (test/platforms/android/inventory/tiers.e2e.test.ts).
    const slowMessages = (body: unknown) =>
      devicesOf(body)
        .filter((d) => d.udid === 'SLOWPHONE1' && d.message !== undefined)
        .map((d) => d.message!);
    // Before its first inventory was cut it is reported as not yet read (issue 42); the cut says why it is slow.
    const isCut = (m: string) => !m.startsWith('the inventory of the device has not finished yet');
    const first = await cloud.waitForPut((r) => slowMessages(r.body).some(isCut), 60_000);
    const said = cloud
      .putRequests()
      .filter((r) => r.receivedAt <= first.receivedAt)
      .flatMap((r) => slowMessages(r.body));
    const cut = said.filter(isCut);
    expect(cut[0]).toMatch(/did not finish within 8000 ms: \d+ of \d+ sections arrived in [\d.]+ s \(the device answers slowly/);
    for (const m of said) expect(m).not.toMatch(/replug|reboot/i);
    // With the model its property dump gave at once.
    expect(devicesOf(first.body).find((d) => d.udid === 'SLOWPHONE1')?.modelName).toBeDefined();
  }, 60_000);
});
