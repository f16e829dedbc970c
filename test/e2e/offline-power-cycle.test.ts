import { describe, expect, it } from 'vitest';
import type { SimDevice } from '../sim/sim-device.js';
import { scrapeMetrics } from './daemon-bed.js';
import { hubDaemonBed, powerCycleEnv } from './hub-daemon-bed.js';
import { reported } from '../support/reports.js';
import { sleep } from '../support/wait.js';

// The power cycle of a phone the earlier steps did not bring back, in the
// running daemon, through the real adb server, the cloud double and the
// stand-in uhubctl (test/hub/): a phone stuck offline across offline
// reconnects has its hub port power-cycled and comes back; while it is
// booked it is neither reconnected nor cycled, and says so; a wedged phone
// whose kick did not help is not cycled while booked.

const { bed, hub } = hubDaemonBed();
const { cloud } = bed;

const counter = (text: string, name: string, action: string, result: string): number =>
  Number(new RegExp(`^device_agent_recovery_${name}_total\\{action="${action}",(?:result|reason)="${result}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
const actions = (text: string, action: string): number => counter(text, 'actions', action, 'ok') + counter(text, 'actions', action, 'failed');
const at = (line: Record<string, unknown>): number => (typeof line.time === 'number' ? line.time : Date.parse(String(line.time)));
const OFFLINE_COOLDOWN_S = 10;

async function phoneOnHub(udid: string) {
  const phone = await bed.networkPhone(udid);
  hub.attach('1-1.4', 3, phone);
  const agent = bed.run(
    powerCycleEnv(hub, phone.serial, udid, {
      // The shortest the settings allow: two reconnects and a cycle within about 30 s.
      DEVICE_AGENT_RECOVERY_OFFLINE_COOLDOWN_SECONDS: String(OFFLINE_COOLDOWN_S),
    }),
  );
  await cloud.waitForPut(
    reported(udid, (d) => d.status === 'AVAILABLE'),
    20_000,
  );
  return { phone, agent, from: hub.switches.length };
}

/** adbd stuck before its handshake: adb connects again at once and lists the phone offline, for good. */
function stickOffline(phone: SimDevice): number {
  phone.setMode('offline');
  phone.disconnect();
  return Date.now();
}

describe('a phone offline reconnects do not bring back', () => {
  it('has its hub port power-cycled after two reconnects and two cooldowns, and comes back, reported clean', async () => {
    const { phone, agent, from } = await phoneOnHub('OFFCYC01');
    const offline = stickOffline(phone);
    await bed.adb.waitForState(phone.serial, 'offline', 10_000);

    const cycle = await agent.waitForLog((l) => l.serial === phone.serial && /power-cycling hub 1-1\.4 port 3/.test(String(l.msg)), 90_000);
    expect(String(cycle.msg)).toMatch(/still offline after 2 offline reconnects/);
    expect(at(cycle) - offline).toBeGreaterThanOrEqual(2 * OFFLINE_COOLDOWN_S * 1000 - 500);
    const done = await agent.waitForLog((l) => /hub 1-1\.4 port 3 power-cycled/.test(String(l.msg)), 30_000);
    expect(String(done.output)).toMatch(/Sent power off request[\s\S]*Sent power on request/);
    const switches = hub.switches.slice(from);
    expect(switches.map((s) => s.power)).toEqual(['off', 'on']);
    // The booking gate was asked before the cycle.
    expect(cloud.statusRequests('OFFCYC01').some((r) => r.receivedAt <= switches[0]!.at)).toBe(true);

    await cloud.waitForPut((r) => r.receivedAt > switches[1]!.at && reported('OFFCYC01', (d) => d.status === 'AVAILABLE' && !d.message)(r), 60_000);
    const text = await scrapeMetrics(agent);
    expect(actions(text, 'reconnect_offline')).toBeGreaterThanOrEqual(2);
    expect(counter(text, 'actions', 'power_cycle', 'ok')).toBe(1);
    expect(actions(text, 'kick')).toBe(0);
  }, 180_000);

  it('is neither reconnected nor cycled while booked, with a message saying so, and both proceed once the booking ends', async () => {
    const { phone, agent, from } = await phoneOnHub('OFFCYC02');
    cloud.setBooked('OFFCYC02', true);
    stickOffline(phone);
    await cloud.waitForPut(
      reported('OFFCYC02', (d) => /left alone: booked in the cloud; recovery holds back `adb reconnect` of the offline device/.test(d.message ?? '')),
      60_000,
    );
    // Past the two cooldowns a cycle would need, and many looks of recovery (every 2 s): nothing done to it.
    await sleep(2 * OFFLINE_COOLDOWN_S * 1000 + 5_000);
    const during = await scrapeMetrics(agent);
    expect(actions(during, 'reconnect_offline')).toBe(0);
    expect(actions(during, 'power_cycle')).toBe(0);
    expect(hub.switches.slice(from)).toEqual([]);
    expect(counter(during, 'held', 'reconnect_offline', 'booked')).toBeGreaterThanOrEqual(1);
    expect(await bed.adb.state(phone.serial)).toBe('offline');
    expect(agent.logs().some((l) => l.serial === phone.serial && /left alone: booked in the cloud/.test(String(l.msg)))).toBe(true);

    cloud.setBooked('OFFCYC02', false);
    const ended = Date.now();
    const cycle = await agent.waitForLog((l) => l.serial === phone.serial && /power-cycling hub 1-1\.4 port 3/.test(String(l.msg)), 90_000);
    // Two reconnects first, the last of them a cooldown before the cycle.
    expect(at(cycle) - ended).toBeGreaterThanOrEqual(OFFLINE_COOLDOWN_S * 1000 - 500);
    expect(actions(await scrapeMetrics(agent), 'reconnect_offline')).toBeGreaterThanOrEqual(2);
    await agent.waitForLog((l) => /hub 1-1\.4 port 3 power-cycled/.test(String(l.msg)), 30_000);
    const on = hub.switches.slice(from)[1]!.at;
    await cloud.waitForPut((r) => r.receivedAt > on && reported('OFFCYC02', (d) => d.status === 'AVAILABLE' && !d.message)(r), 60_000);
  }, 240_000);
});

describe('a wedged phone a kick did not bring back, booked', () => {
  it('has its power cycle held while booked, saying so, and cycled once the booking ends', async () => {
    const { phone, agent, from } = await phoneOnHub('OFFCYC03');
    // adbd wedged for good: every connection's shells hang, a new one's too.
    phone.wedge(true);
    await agent.waitForLog((l) => l.serial === phone.serial && /kicking the adb transport/.test(String(l.msg)), 60_000);
    cloud.setBooked('OFFCYC03', true);
    // Kicked, adb forgot it and the agent connected it again: a new connection
    // that has not said who it is, which reports leave out (a phone over TCP
    // is named by its address). The agent's log and metrics carry the hold.
    const heldLine = await agent.waitForLog(
      (l) =>
        l.serial === phone.serial &&
        /left alone: booked in the cloud; recovery holds back power-cycling its hub port until the booking ends/.test(String(l.msg)),
      60_000,
    );
    expect(heldLine).toMatchObject({ level: 'info', action: 'power_cycle', reason: 'booked' });
    await sleep(10_000);
    const during = await scrapeMetrics(agent);
    expect(actions(during, 'power_cycle')).toBe(0);
    expect(hub.switches.slice(from)).toEqual([]);
    expect(counter(during, 'held', 'power_cycle', 'booked')).toBeGreaterThanOrEqual(1);

    cloud.setBooked('OFFCYC03', false);
    await agent.waitForLog((l) => l.serial === phone.serial && /power-cycling hub 1-1\.4 port 3/.test(String(l.msg)), 60_000);
    await agent.waitForLog((l) => /hub 1-1\.4 port 3 power-cycled/.test(String(l.msg)), 30_000);
    const on = hub.switches.slice(from)[1]!.at;
    await cloud.waitForPut((r) => r.receivedAt > on && reported('OFFCYC03', (d) => d.status === 'AVAILABLE' && !d.message)(r), 60_000);
    expect(counter(await scrapeMetrics(agent), 'actions', 'power_cycle', 'ok')).toBe(1);
  }, 240_000);
});
