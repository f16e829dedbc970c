import { describe, expect, it } from 'vitest';
import { CloudDouble, type RecordedRequest } from '../cloud-double/cloud-double.js';
import { SimFarm } from '../sim/farm.js';
import { agentOnFarm } from '../support/farm-agent.js';
import { devicesOf } from '../support/reports.js';
import { sleep } from '../support/wait.js';

// 200 devices dropping their connections again and again (a bad USB hub):
// the daemon keeps running, gathers the changes into few reports rather than
// one per flap, and once things settle its next report has all 200 in full.

const N = 200;

describe('faults: flapping', () => {
  const farm = new SimFarm({ count: N, profile: 'pixel-8-pro', serialPrefix: 'FLAP', readyTimeoutMs: 120_000 });
  const cloud = new CloudDouble();
  const run = agentOnFarm(farm, cloud, {}, { startMs: 180_000 });

  const allReady = (r: RecordedRequest) => {
    const ready = new Set(
      devicesOf(r)
        .filter((d) => d.state === 'device' && d.modelName !== undefined)
        .map((d) => d.udid),
    );
    return farm.serialNumbers.every((s) => ready.has(s));
  };

  it(`${N} devices flapping: few reports, the agent keeps running, then all ${N} reported in full`, async () => {
    // The set-up: 200 first inventories (readiness's sections among them) on a loaded 2-core CI machine.
    await cloud.waitForPut((r) => r.answer?.status === 200 && allReady(r), 150_000);
    const before = cloud.putRequests().length;
    const flapsFrom = Date.now();
    const waves = 4;
    for (let wave = 0; wave < waves; wave++) {
      for (const device of farm.devices) device.disconnect();
      await sleep(400);
    }
    // adb reconnects `adb connect`ed devices by itself; wait until it has.
    await farm.server.waitForStates(new Map(farm.serials.map((s) => [s, 'device'])), 90_000);
    // Then the next reports bring every device back in full (an inventory that takes long brings its own report when it answers).
    const last = await cloud.waitForPut((r) => r.receivedAt > flapsFrom && r.answer?.status === 200 && allReady(r), 90_000);
    expect(last.receivedAt).toBeGreaterThan(flapsFrom);
    const reports = cloud.putRequests().filter((r) => r.receivedAt <= last.receivedAt).length - before;
    // 200 devices x 4 waves is 800 disconnections and as many reconnections:
    // the debounce turns them into a handful of reports (2 when measured).
    expect(reports).toBeGreaterThanOrEqual(1);
    expect(reports).toBeLessThanOrEqual(10);
    expect(run.agent.child.exitCode).toBeNull();
    // 1,600 device events, and the log says so in a bounded number of lines
    // (src/log/limited.ts): ten, then a summary with the count a minute on.
    const changed = run.agent.logs().filter((l) => l.msg === 'device changed');
    expect(changed.length).toBeGreaterThanOrEqual(1);
    expect(changed.length).toBeLessThanOrEqual(11);
  }, 360_000);
});

// Issue 34, finding 7: one phone flapping (a boot loop, a bad cable) wrote a
// line per change, and a report line per report it caused. Now its first
// changes are lines, then one line says it is flapping and whom to suspect,
// and its further changes are at debug (src/devices/flap-log.ts).
describe('faults: one phone flapping', () => {
  const farm = new SimFarm({ count: 2, profile: 'pixel-8-pro', serialPrefix: 'BOOT' });
  const cloud = new CloudDouble();
  // At debug, to count the changes the flapping phone's summary holds back.
  const run = agentOnFarm(farm, cloud, { DEVICE_AGENT_LOG_LEVEL: 'debug' });

  it('a phone flapping 20 times: a bounded number of info lines, one of them naming it as flapping and whom to suspect', async () => {
    await cloud.waitForPut((r) => r.answer?.status === 200 && farm.serialNumbers.every((s) => devicesOf(r).some((d) => d.udid === s)), 30_000);
    const [flapper, steady] = farm.devices;
    const serial = flapper!.serial;
    const from = run.agent.logs().length;
    // Its connection drops and adb lists it again: 20 changes of state, as adb lists them (device, offline, device...).
    let changes = 0;
    for (let i = 0; i < 40 && changes < 20; i++) {
      flapper!.disconnect();
      const offline = await farm.server.waitForState(serial, 'offline', 30_000).then(
        () => true,
        () => false,
      );
      await farm.server.waitForState(serial, 'device', 60_000);
      if (offline) changes += 2;
    }
    expect(changes).toBeGreaterThanOrEqual(20);
    await sleep(6_000);
    const after = run.agent.logs().slice(from);
    const atInfo = after.filter((l) => ['info', 'warn', 'error', 'fatal'].includes(String(l.level)));
    const naming = atInfo.filter((l) => l.serial === serial || String(l.msg).includes(serial));
    // Its first 3 changes, the line that it is flapping; and the lines of a cut-off inventory, if one was cut.
    expect(naming.filter((l) => l.msg === 'device changed').length).toBeLessThanOrEqual(3);
    const flapping = naming.filter((l) => String(l.msg).startsWith(`device ${serial} changed state`));
    expect(flapping).toHaveLength(1);
    expect(flapping[0]!.level).toBe('warn');
    expect(String(flapping[0]!.msg)).toMatch(
      /the phone or its network link is unstable, not the agent; check its Wi-Fi and address, or whether it is boot-looping/,
    );
    expect(naming.length).toBeLessThanOrEqual(10);
    // The reports its changes caused are not a line each.
    expect(atInfo.filter((l) => l.msg === 'report delivered').length).toBeLessThanOrEqual(4);
    expect(atInfo.some((l) => l.serial === steady!.serial)).toBe(false);
    // Every change was seen, and logged at debug past the first ones.
    expect(after.filter((l) => l.msg === 'device changed' && l.serial === serial).length).toBeGreaterThanOrEqual(20);
    expect(run.agent.child.exitCode).toBeNull();
  }, 240_000);
});
