import { ACTIONS_REFUSED } from '../../../src/actions/trust.js';
import { describe, expect, it } from 'vitest';
import { recoveryBed } from './recovery-bed.js';

// Recovery's decisions on virtual time, on the recovery bed (the real
// Recovery, ActionRunner, booking gate, registry and policy; adb and the hub
// tool scripted): what the e2e tests waited out in real cooldowns and
// negative waits (docs/design/tooling.md, "Time in tests").

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

describe('an offline phone with an offline cooldown longer than the hour the runner keeps counted starts', () => {
  it("is reconnected once per cooldown, counted from the runner's start of the last reconnect", async () => {
    const bed = recoveryBed({ env: { DEVICE_AGENT_RECOVERY_OFFLINE_COOLDOWN_SECONDS: '10800' } });
    bed.list('R58M12AB', 'offline');
    bed.recovery.start();
    await bed.advance(5_000);
    expect(bed.doneSince(0)).toEqual(['reconnect offline']);
    const first = bed.done[0]!.at;
    // Past the hour, still within the 3 h cooldown: nothing.
    await bed.advance(3 * 3_600_000 - 10_000);
    expect(bed.doneSince(first + 1)).toEqual([]);
    await bed.advance(10_000);
    expect(bed.doneSince(first + 1)).toEqual(['reconnect offline']);
    expect(bed.done.at(-1)!.at - first).toBeGreaterThanOrEqual(3 * 3_600_000);
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
    // What the status client makes of a 503 (test/cloud/booking-status.e2e.test.ts).
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

// A power cycle that cannot work, over hours of virtual time (issue 34,
// finding 4): the hub tool finds no hub at the location. The e2e test
// (test/e2e/cycle-blocked.test.ts) shows the real stand-in's words becoming
// the one "cannot work" line; this one shows that the cycle is never tried
// again while the hub's listing stays the same, however long the phone
// stays wedged, and is tried again once the listing changes.

const NOHUB_SERIAL = '127.0.0.1:40002';
/** What runTool makes of the stand-in's (and the real uhubctl's) answer for a hub it does not find. */
const NO_HUB = (args: string) => new Error(`uhubctl ${args}: exit status 1: No compatible devices detected at location 1-1.4!`);

function wedgedOnMissingHub() {
  let listing = 'No compatible devices detected at location 1-1.4!';
  const bed = recoveryBed({
    env: {
      DEVICE_AGENT_NETWORK_DEVICES: NOHUB_SERIAL,
      DEVICE_AGENT_HUB_PORTS: 'NOHUB001=1-1.4:3',
      DEVICE_AGENT_RECOVERY_KICK_AFTER_SHELL_FAILURES: '2',
      DEVICE_AGENT_RECOVERY_KICK_COOLDOWN_SECONDS: '10',
      DEVICE_AGENT_RECOVERY_BOOKING_CACHE_SECONDS: '2',
      DEVICE_AGENT_RECOVERY_POWER_CYCLE: 'true',
    },
    cycle: () => Promise.reject(NO_HUB('-l 1-1.4 -p 3 -a cycle')),
    status: () => Promise.reject(new Error(`uhubctl -l 1-1.4: exit status 1: ${listing}`)),
  });
  bed.list(NOHUB_SERIAL, 'device');
  bed.answered(NOHUB_SERIAL, 'NOHUB001');
  bed.recovery.start();
  /** adbd wedged for good: a shell misses its deadline at every inventory the planner asks for (it backs a failing phone off, 10 s, 20 s, ... up to minutes; 30 s here throughout, more often than that). */
  const wedgedFor = async (ms: number): Promise<void> => {
    for (let t = 0; t < ms; t += 30_000) {
      bed.failed(NOHUB_SERIAL);
      await bed.advance(30_000);
    }
  };
  return { bed, wedgedFor, plugHub: () => (listing = 'Current status for hub 1-1.4 [2109:2817 VIA Labs, Inc. USB2.0 Hub, USB 2.10, 4 ports, ppps]') };
}

const cycles = (done: ReadonlyArray<{ what: string }>): number => done.filter((d) => d.what === 'cycle 1-1.4:3').length;

describe('a power cycle on a hub the tool does not find', () => {
  it('is tried once, said once, and not retried over hours of a wedged phone; the phone says a person is needed', async () => {
    const { bed, wedgedFor } = wedgedOnMissingHub();
    await wedgedFor(3 * 60 * 60_000);
    // Kicked (once an hour: the kicks' limit), and the port tried once.
    expect(bed.done.filter((d) => d.what === `reconnect ${NOHUB_SERIAL}`).length).toBeGreaterThanOrEqual(1);
    expect(cycles(bed.done)).toBe(1);
    expect(bed.actions('power_cycle', 'failed')).toBe(1);
    expect(bed.actions('power_cycle', 'ok')).toBe(0);
    const said = bed.lines(/cannot work|needs a person/);
    expect(said).toHaveLength(1);
    expect(String(said[0]!.msg)).toMatch(/No compatible devices detected at location 1-1\.4.*not tried again until the settings change/);
    expect(bed.notes(NOHUB_SERIAL)?.attention).toMatch(
      /^needs a person: power-cycling hub 1-1\.4 port 3 cannot work \(the hub tool finds no hub at that location/,
    );
    // The hub's listing is asked now and then, to see the hardware change.
    expect(bed.done.filter((d) => d.what === 'status 1-1.4').length).toBeGreaterThan(1);
  });

  it('is tried again once the hub tool lists the hub', async () => {
    const { bed, wedgedFor, plugHub } = wedgedOnMissingHub();
    await wedgedFor(10 * 60_000);
    expect(cycles(bed.done)).toBe(1);
    plugHub();
    await wedgedFor(5 * 60_000);
    expect(bed.lines(/answers differently now; power-cycling 1-1\.4:3 may be tried again/)).toHaveLength(1);
    expect(cycles(bed.done)).toBe(2);
  });
});

// Power-cycle recovery of a wedged phone, on virtual time (moved from
// test/e2e/power-cycle.test.ts; the cycle through the real adb server and
// the stand-in uhubctl stays in test/e2e/offline-power-cycle.test.ts, and a
// wedged phone's kick then cycle through them in test/e2e/cycle-blocked.test.ts).

const CYCLE_SERIAL = '127.0.0.1:40003';

describe('a phone a kick did not help, still failing in the same run', () => {
  it('is kicked again only after as many failures again, counted from its failure count at the kick the runner counted, though the cooldown is over', async () => {
    const phone = 'R58M1KICK';
    const bed = recoveryBed({
      env: { DEVICE_AGENT_RECOVERY_KICK_AFTER_SHELL_FAILURES: '3', DEVICE_AGENT_RECOVERY_KICK_COOLDOWN_SECONDS: '10' },
    });
    bed.list(phone, 'device');
    bed.answered(phone, 'KICK0001');
    bed.recovery.start();
    bed.failed(phone, 3);
    await bed.advance(2_000);
    expect(bed.doneSince(0)).toEqual([`reconnect ${phone}`]);
    // The cooldown is over; two more failures are not three.
    await bed.advance(20_000);
    for (let n = 4; n <= 5; n++) {
      bed.failed(phone);
      await bed.advance(2_000);
      expect(bed.doneSince(0), `at ${n} failures`).toEqual([`reconnect ${phone}`]);
    }
    bed.failed(phone);
    await bed.advance(2_000);
    expect(bed.doneSince(0)).toEqual([`reconnect ${phone}`, `reconnect ${phone}`]);
  });
});

describe('a phone a kick does not bring back', () => {
  it('has its hub port power-cycled once the kick cooldown is over, on a fresh "not booked", and comes back', async () => {
    const bed = recoveryBed({
      env: {
        DEVICE_AGENT_NETWORK_DEVICES: CYCLE_SERIAL,
        DEVICE_AGENT_HUB_PORTS: 'CYCLE001=1-1.4:3',
        DEVICE_AGENT_RECOVERY_KICK_AFTER_SHELL_FAILURES: '2',
        DEVICE_AGENT_RECOVERY_KICK_COOLDOWN_SECONDS: '10',
        DEVICE_AGENT_RECOVERY_BOOKING_CACHE_SECONDS: '2',
        DEVICE_AGENT_RECOVERY_POWER_CYCLE: 'true',
      },
    });
    bed.list(CYCLE_SERIAL, 'device');
    bed.answered(CYCLE_SERIAL, 'CYCLE001');
    bed.recovery.start();
    await bed.advance(5_000);
    // adbd wedged for good: every connection's shells hang, the kicked one's too. A shell misses its deadline every 2 s, until the cycle.
    for (let t = 0; !bed.done.some((d) => d.what.startsWith('cycle ')); t += 2_000) {
      expect(t).toBeLessThan(60_000);
      bed.failed(CYCLE_SERIAL);
      await bed.advance(2_000);
    }
    const done = bed.done.filter((d) => !d.what.startsWith('connect '));
    expect(done.map((d) => d.what)).toEqual([`reconnect ${CYCLE_SERIAL}`, 'cycle 1-1.4:3']);
    const [kick, cycle] = done;
    expect(cycle!.at - kick!.at).toBeGreaterThanOrEqual(10_000);
    // The booking gate was asked about the cycle, within its cache time before it.
    expect(bed.asked.some((a) => a.id === 'CYCLE001' && a.at <= cycle!.at && a.at > cycle!.at - 2_000)).toBe(true);
    expect(bed.lines(/hub 1-1\.4 port 3 power-cycled/)[0]?.output).toMatch(/Sent power off request[\s\S]*Sent power on request/);

    // The cycle brought it back.
    bed.answered(CYCLE_SERIAL, 'CYCLE001');
    await bed.advance(60_000);
    expect(bed.actions('power_cycle', 'ok')).toBe(1);
    expect(bed.actions('kick', 'ok')).toBe(1);
    expect(bed.notes(CYCLE_SERIAL)?.attention).toBeUndefined();
  });
});

// A network device whose address refuses, on virtual time (moved from
// test/e2e/self-healing.test.ts, which keeps the warning against a real
// closed port): one warning, and attempts spaced by a growing backoff (2 s,
// 4 s, 8 s, ... at most 5 min), not a fixed retry.

describe('a network device whose address refuses', () => {
  it('gets one warning and attempts spaced by a growing backoff, up to 5 minutes apart', async () => {
    const address = '127.0.0.1:40009';
    const bed = recoveryBed({
      env: { DEVICE_AGENT_NETWORK_DEVICES: address },
      connect: (a) => Promise.reject(new Error(`failed to connect to '${a}': Connection refused`)),
    });
    bed.list('USB0001', 'device');
    bed.recovery.start();
    await bed.advance(60 * 60_000);
    const at = bed.done.filter((d) => d.what === `connect ${address}`).map((d) => d.at);
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    // Each gap at least the one before it, from about 2 s up to the 5 min cap.
    expect(gaps[0]).toBeLessThanOrEqual(4_000);
    for (let i = 1; i < gaps.length; i++) expect(gaps[i]).toBeGreaterThanOrEqual(gaps[i - 1]!);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(5 * 60_000 + 2_000);
    expect(gaps.at(-1)).toBeGreaterThanOrEqual(4 * 60_000);
    // In the first 10 s: at most 4 attempts (a fixed 2 s retry would make 5 or more).
    expect(at.filter((t) => t <= at[0]! + 10_000).length).toBeLessThanOrEqual(4);
    const warnings = bed.log.lines().filter((l) => l.address === address && l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]!.msg)).toMatch(/could not be connected .*keeps trying/);
    expect(bed.actions('connect', 'failed')).toBe(at.length);
  });
});

// The trust rule's refusals of the other two host actions (the e2e test
// test/e2e/identity-actions.test.ts reads the refused kick): each says
// "recovery does not ACTION S: WHY; ..." once, is counted, and nothing is done.
describe('recovery refuses a host action for a phone it cannot trust', () => {
  it('does not power-cycle a network phone while a ready device has not said who it is: one line, counted, no cycle', async () => {
    const bed = await phoneOnHub('TRUST001');
    bed.failed(SERIAL, 2);
    await bed.advance(3_000);
    expect(bed.doneSince(0)).toEqual([`reconnect ${SERIAL}`]);
    // Another phone is ready and has not said who it is: it may be the phone TRUST001 belongs to.
    bed.list('127.0.0.1:40009', 'device');
    bed.failed(SERIAL, 2);
    const wedged = bed.time.now;
    await bed.advance(30 * 60_000);
    expect(bed.doneSince(wedged)).toEqual([]);
    const refused = bed.lines(/^recovery does not power cycle /);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ level: 'warn', serial: SERIAL, action: 'power_cycle' });
    expect(refused[0]!.msg).toBe(
      `recovery does not power cycle ${SERIAL}: it is on network adb and a ready device has not said who it is yet (127.0.0.1:40009); ` +
        'one may be the phone TRUST001 belongs to; no host action is taken for it until its identity holds',
    );
    expect(bed.stats.counter(ACTIONS_REFUSED).get('power_cycle')).toBe(1);
  });

  it('does not reconnect offline phones that give one udid, asks the cloud nothing about them, and says so once each', async () => {
    const twin = '127.0.0.1:40010';
    const bed = recoveryBed({ env: { ...env('TWIN0001'), DEVICE_AGENT_NETWORK_DEVICES: `${SERIAL},${twin}` } });
    bed.list(SERIAL, 'device');
    bed.answered(SERIAL, 'TWIN0001');
    bed.recovery.start();
    bed.list(twin, 'device');
    bed.answered(twin, 'TWIN0001');
    bed.list(SERIAL, 'offline');
    bed.list(twin, 'offline');
    const offline = bed.time.now;
    await bed.advance(10 * 60_000);
    expect(bed.doneSince(offline).filter((d) => d.startsWith('reconnect'))).toEqual([]);
    const refused = bed.lines(/^recovery does not reconnect offline /);
    expect(refused.map((l) => l.serial).sort()).toEqual([SERIAL, twin].sort());
    expect(String(refused[0]!.msg)).toMatch(/: 2 devices \(adb serials .*\) give the udid TWIN0001; no host action is taken for it until its identity holds$/);
    expect(bed.stats.counter(ACTIONS_REFUSED).get('reconnect_offline')).toBe(2);
    // Nothing was asked of the cloud for them, and no note says they are left alone for their booking.
    expect(bed.asked).toEqual([]);
    expect(bed.notes(SERIAL)?.heldBack).toBeUndefined();
  });
});

// adb answers "already connected to ADDRESS" to a connect of an address it
// lists offline (it keeps the transport it has). Each connect was logged as
// "network device ADDRESS connected (listed as offline)", every 2 s for as
// long as the phone stayed offline: untrue, and a connect adb cannot act on.
describe('a network phone adb keeps listed offline', () => {
  it('is not said to be connected, and adb is asked less and less often, once after each offline reconnect', async () => {
    const bed = await phoneOnHub('HELD0001');
    bed.list(SERIAL, 'offline');
    const offline = bed.time.now;
    await bed.advance(10 * 60_000);
    const connects = bed.done.filter((d) => d.at >= offline && d.what.startsWith('connect '));
    const reconnects = bed.done.filter((d) => d.at >= offline && d.what === 'reconnect offline');
    // Before: 300 connects in these 10 minutes.
    expect(connects.length).toBeLessThanOrEqual(reconnects.length + 10);
    expect(bed.lines(/connected \(listed as offline\)/)).toEqual([]);
    // adb drops it (after a reconnect, say): it is connected a base interval after the last try, and said so.
    bed.unlist(SERIAL);
    const dropped = bed.time.now;
    await bed.advance(3_000);
    expect(bed.done.filter((d) => d.at >= dropped && d.what === `connect ${SERIAL}`)).toHaveLength(1);
  });
});
