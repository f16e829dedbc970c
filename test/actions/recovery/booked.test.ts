import { describe, expect, it } from 'vitest';
import { recoveryBed } from './recovery-bed.js';

// The booking gate's hold on recovery's disruptions, on virtual time (moved
// from test/e2e/offline-power-cycle.test.ts, which keeps the cycle itself
// through the real adb server and the stand-in uhubctl): a booked phone
// stuck offline is neither reconnected nor power-cycled, and says so; a
// wedged phone a kick did not bring back has its cycle held; both proceed
// once the booking ends. The settings are the e2e test's: the shortest
// cooldowns the settings allow.

const SERIAL = '127.0.0.1:40001';
const env = (udid: string): Record<string, string> => ({
  DEVICE_AGENT_NETWORK_DEVICES: SERIAL,
  DEVICE_AGENT_HUB_PORTS: `${udid}=1-1.4:3`,
  DEVICE_AGENT_RECOVERY_KICK_AFTER_SHELL_FAILURES: '2',
  DEVICE_AGENT_RECOVERY_KICK_COOLDOWN_SECONDS: '10',
  DEVICE_AGENT_RECOVERY_OFFLINE_COOLDOWN_SECONDS: '10',
  DEVICE_AGENT_RECOVERY_BOOKING_CACHE_SECONDS: '2',
  DEVICE_AGENT_RECOVERY_POWER_CYCLE: 'true',
});
const COOLDOWN_MS = 10_000;

/** A network phone on hub 1-1.4 port 3 the agent has inventoried, recovery running. */
async function phoneOnHub(udid: string) {
  const bed = recoveryBed({ env: env(udid) });
  bed.list(SERIAL, 'device');
  bed.answered(SERIAL, udid);
  bed.recovery.start();
  await bed.advance(5_000);
  expect(bed.doneSince(0)).toEqual([]);
  return bed;
}

describe('a booked phone stuck offline', () => {
  it('is neither reconnected nor cycled while booked, with a message saying so, and both proceed once the booking ends', async () => {
    const bed = await phoneOnHub('OFFCYC02');
    bed.booked.add('OFFCYC02');
    // adbd stuck before its handshake: adb lists the phone offline, for good.
    bed.list(SERIAL, 'offline');
    const offline = bed.time.now;
    // Far past the two cooldowns a cycle needs (the e2e test could wait 25 s): nothing done to it.
    await bed.advance(30 * 60_000);
    expect(bed.doneSince(offline)).toEqual([]);
    expect(bed.actions('reconnect_offline', 'ok') + bed.actions('power_cycle', 'ok')).toBe(0);
    expect(bed.held('reconnect_offline', 'booked')).toBeGreaterThanOrEqual(1);
    expect(bed.notes(SERIAL)?.heldBack).toMatch(
      /^left alone: booked in the cloud; recovery holds back `adb reconnect` of the offline device until the booking ends$/,
    );
    expect(bed.lines(/left alone: booked in the cloud/)[0]).toMatchObject({ serial: SERIAL, action: 'reconnect_offline', reason: 'booked' });
    expect(bed.asked.map((a) => a.id)).toContain('OFFCYC02');

    bed.booked.delete('OFFCYC02');
    const ended = bed.time.now;
    await bed.until(() => bed.done.some((d) => d.what.startsWith('cycle ')), 60_000);
    const done = bed.done.filter((d) => d.at >= ended && !d.what.startsWith('connect '));
    const cycle = done.findIndex((d) => d.what === 'cycle 1-1.4:3');
    // Two reconnects first, each a whole cooldown before the next step, then the cycle, once.
    expect(done.slice(0, cycle + 1).map((d) => d.what)).toEqual(['reconnect offline', 'reconnect offline', 'cycle 1-1.4:3']);
    expect(done[1]!.at - done[0]!.at).toBeGreaterThanOrEqual(COOLDOWN_MS);
    expect(done[2]!.at - done[1]!.at).toBeGreaterThanOrEqual(COOLDOWN_MS);
    expect(bed.lines(/power-cycling hub 1-1\.4 port 3/)[0]?.msg).toMatch(/still offline after 2 offline reconnects/);

    // The cycle brought it back.
    bed.list(SERIAL, 'device');
    bed.answered(SERIAL, 'OFFCYC02');
    await bed.advance(60_000);
    expect(bed.actions('power_cycle', 'ok')).toBe(1);
    expect(bed.done.filter((d) => d.what.startsWith('cycle '))).toHaveLength(1);
    expect(bed.notes(SERIAL)?.heldBack).toBeUndefined();
    expect(bed.notes(SERIAL)?.attention).toBeUndefined();
  });
});

describe('a wedged phone a kick did not bring back, booked', () => {
  it('has its power cycle held while booked, saying so, and cycled once the booking ends', async () => {
    const bed = await phoneOnHub('OFFCYC03');
    // adbd wedged for good: two shells miss their deadline, the transport is kicked.
    bed.failed(SERIAL, 2);
    await bed.advance(3_000);
    expect(bed.doneSince(0)).toEqual([`reconnect ${SERIAL}`]);
    bed.booked.add('OFFCYC03');
    // The kick did not help: the new connection's shells hang too.
    bed.failed(SERIAL, 2);
    const wedged = bed.time.now;
    await bed.advance(30 * 60_000);
    expect(bed.doneSince(wedged)).toEqual([]);
    const held = bed.lines(/left alone: booked in the cloud; recovery holds back power-cycling its hub port until the booking ends/);
    expect(held[0]).toMatchObject({ level: 'info', serial: SERIAL, action: 'power_cycle', reason: 'booked' });
    expect(bed.held('power_cycle', 'booked')).toBeGreaterThanOrEqual(1);
    expect(bed.actions('power_cycle', 'ok')).toBe(0);
    expect(bed.notes(SERIAL)?.heldBack).toMatch(/power-cycling its hub port until the booking ends/);

    bed.booked.delete('OFFCYC03');
    const ended = bed.time.now;
    await bed.until(() => bed.done.some((d) => d.what.startsWith('cycle ')), 30_000);
    expect(bed.doneSince(ended)).toEqual(['cycle 1-1.4:3']);
    bed.answered(SERIAL, 'OFFCYC03');
    await bed.advance(30_000);
    expect(bed.actions('power_cycle', 'ok')).toBe(1);
    expect(bed.notes(SERIAL)?.heldBack).toBeUndefined();
  });
});

/** At most `max` booking questions in any 60 s. */
function withinBound(asked: ReadonlyArray<{ at: number }>, max: number): void {
  for (const a of asked) expect(asked.filter((b) => b.at > a.at - 60_000 && b.at <= a.at).length).toBeLessThanOrEqual(max);
}

// Moved from test/e2e/booking.test.ts, which keeps the kick held and let
// through against the real cloud double's status answers.
describe('a wedged phone that would be kicked', () => {
  it('is left alone while booked, for as long as it is booked, and kicked once the booking ends; the questions within the bound', async () => {
    const bed = await phoneOnHub('BOOK0001');
    bed.booked.add('BOOK0001');
    bed.failed(SERIAL, 2);
    const wedged = bed.time.now;
    await bed.advance(30 * 60_000);
    expect(bed.doneSince(wedged)).toEqual([]);
    expect(bed.actions('kick', 'ok')).toBe(0);
    expect(bed.held('kick', 'booked')).toBeGreaterThanOrEqual(1);
    expect(bed.notes(SERIAL)?.heldBack).toMatch(/^left alone: booked in the cloud; recovery holds back kicking its adb transport/);
    expect(bed.lines(/left alone: booked in the cloud/)[0]).toMatchObject({ level: 'info', serial: SERIAL, action: 'kick', reason: 'booked' });

    bed.booked.delete('BOOK0001');
    const ended = bed.time.now;
    await bed.until(() => bed.doneSince(ended).length > 0, 30_000);
    expect(bed.doneSince(ended)).toEqual([`reconnect ${SERIAL}`]);
    bed.answered(SERIAL, 'BOOK0001');
    await bed.advance(60_000);
    expect(bed.actions('kick', 'ok')).toBe(1);
    expect(bed.notes(SERIAL)?.heldBack).toBeUndefined();
    withinBound(bed.asked, 4);
  });

  it('is left alone when the cloud cannot say whether it is booked', async () => {
    const bed = await phoneOnHub('BOOK0002');
    // What the status client makes of a 503 (test/cloud/booking-status.test.ts).
    bed.cloud.unknown = 'GET /devices/BOOK0002/status: the cloud is unavailable (HTTP 503)';
    bed.failed(SERIAL, 2);
    const wedged = bed.time.now;
    await bed.advance(3_000);
    expect(bed.notes(SERIAL)?.heldBack).toMatch(
      /^left alone: the cloud could not say whether it is booked \(.*HTTP 503\)\); recovery holds back kicking its adb transport/,
    );
    await bed.advance(30 * 60_000);
    expect(bed.doneSince(wedged)).toEqual([]);
    expect(bed.actions('kick', 'ok')).toBe(0);
    expect(bed.held('kick', 'unknown')).toBeGreaterThanOrEqual(1);
    expect(bed.notes(SERIAL)?.heldBack).toMatch(/^left alone: the cloud could not say whether it is booked/);
    withinBound(bed.asked, 4);
  });
});
