import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AdbProxy } from '../sim/adb-proxy.js';
import { loadProfile, withSerial } from '../sim/profile.js';
import { SimDevice } from '../sim/sim-device.js';
import { devicesOf, reported } from '../support/reports.js';
import { waitFor } from '../support/wait.js';
import { daemonEnv, startAgent, type AgentProcess } from './agent-process.js';
import { DaemonBed } from './daemon-bed.js';

// A wireless-debugging phone that reboots comes back on a new port (its
// name, announced over mdns, stays): the agent, which knew it at its old
// address (networkDevices), finds it again through `adb mdns services` and
// reports it AVAILABLE within one cycle of the announcement. A device that
// announces the phone's name while it is away, but says it is another
// phone, takes nothing of it: disconnected. The real adb server (29) has no
// mdns, so a relay in front of it answers `host:mdns:services` as adb 30 and
// later print it (test/sim/adb-proxy.ts, its source named there).

const bed = new DaemonBed();
const { cloud } = bed;
let proxy: AdbProxy;
let agent: AgentProcess | undefined;
const NAME = 'adb-MDNS01-QXjCrW';

beforeAll(async () => {
  await bed.start();
  proxy = new AdbProxy({ targetPort: bed.adb.port });
  await proxy.start();
});
afterEach(async () => {
  await agent?.stop('SIGKILL').catch(() => undefined);
  agent = undefined;
  proxy.mdns = undefined;
  await bed.reset();
});
afterAll(async () => {
  await proxy.stop();
  await bed.stop();
});

/** A phone playing the bed's profile under this serial, listening on a port adb does not know yet. */
async function phoneOnNewPort(serial: string): Promise<SimDevice> {
  const device = new SimDevice({ profile: withSerial(loadProfile('pixel-8-pro'), serial) });
  bed.devices.push(device);
  await device.start();
  return device;
}

describe('a wireless-debugging phone that reboots onto a new port', () => {
  it('is found again through mdns and reported AVAILABLE within one cycle of the announcement; a device announcing its name as another phone takes nothing', async () => {
    const first = await bed.networkPhone('MDNS01');
    proxy.mdns = [{ instance: NAME, type: 'adb-tls-connect', address: first.serial }];
    // At debug, so that a failure prints each look at mdns and each connect's outcome.
    agent = startAgent(
      ['run'],
      daemonEnv(proxy.env, cloud, { DEVICE_AGENT_NETWORK_DEVICES: first.serial, DEVICE_AGENT_SCHEDULE: '*/2 * * * * *', DEVICE_AGENT_LOG_LEVEL: 'debug' }),
    );
    await cloud.waitForPut(
      reported('MDNS01', (d) => d.status === 'AVAILABLE'),
      60_000,
    );
    // The agent learns its name at its next look at mdns after it answered (each report's collect looks once).
    const learnedFrom = proxy.mdnsAsked;
    await waitFor(() => proxy.mdnsAsked >= learnedFrom + 2, 30_000);

    // It reboots: its old port is gone for good; while it is away, a forger announces its name, says it is another.
    await first.stop();
    const forger = await phoneOnNewPort('EVIL01');
    proxy.mdns = [{ instance: NAME, type: 'adb-tls-connect', address: forger.serial }];
    // Up to 90 s: the phone is followed only once it is ready nowhere, and the bed's adb server (29) lists a network
    // device whose connection closed as `device` for about 27 s more (measured alone: the refusal came 28 to 30 s
    // after the stop); then the forger's first inventory must say who it is (up to 30 s in CI's e2e tier).
    const refused = await agent.waitForLog((l) => l.serial === forger.serial && /says it is "EVIL01"/.test(String(l.msg)), 90_000);
    expect(String(refused.msg)).toMatch(/takes nothing of MDNS01; disconnected/);
    expect(await bed.adb.state(forger.serial)).toBe('absent');
    for (const r of cloud.putRequests()) expect(devicesOf(r).find((d) => d.udid === 'MDNS01')?.message ?? '').not.toContain(forger.serial);

    // It comes back on a new port and says so over mdns.
    const back = await phoneOnNewPort('MDNS01');
    const asked = proxy.mdnsAsked;
    const backAt = Date.now();
    proxy.mdns = [{ instance: NAME, type: 'adb-tls-connect', address: back.serial }];
    // Its first inventory on the new connection: up to 60 s, as a first report in CI's e2e tier takes 20 to 30 s.
    await cloud.waitForPut((r) => devicesOf(r).some((d) => d.udid === 'MDNS01' && d.status === 'AVAILABLE') && r.receivedAt >= backAt, 60_000);
    // Within one cycle of the announcement: the first look at mdns after it (each report's collect looks once)
    // connects it. Counted in looks, not in reports or seconds: on a loaded host the inventory that follows the
    // connect may span several 2-s reports, which is the inventory's time, not the finder's.
    expect(proxy.connects.find((c) => c.address === back.serial)?.mdnsAsked).toBe(asked + 1);
    expect(await bed.adb.state(back.serial)).toBe('device');
    await agent.waitForLog((l) => l.serial === back.serial && /found again at/.test(String(l.msg)), 10_000);
  }, 300_000);
});
