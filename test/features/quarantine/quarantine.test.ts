import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { incidentFrom, INCIDENTS_DIR } from '../../../src/devices/incidents.js';
import { QUARANTINE, QUARANTINE_REQUESTS_DIR, quarantined } from '../../../src/devices/quarantine.js';
import { writeAtomically } from '../../../src/util/atomic-file.js';
import { PHONE_STATE } from '../../../src/devices/phone-state.js';
import { QUARANTINES } from '../../../src/features/quarantine/quarantine.js';
import { STRING_LIMITS } from '../../../src/report/field-limits.js';
import { lifeBed } from '../availability/life.js';
import { captureLogger } from '../../log/capture.js';

// Quarantine on the report bed, as the daemon runs it: its action on the one
// runner with a booking gate, the cloud a MemCloud, virtual time.

const MIN = 60_000;
type Life = ReturnType<typeof lifeBed>;

/** The phone fails `times` runs of inventories (a wedge of 90 s each), 3 minutes apart. */
async function flap(life: Life, p: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    life.start('wedge', p);
    await life.bed.advance(90_000, 1_000);
    life.end(p);
    await life.bed.advance(90_000, 1_000);
  }
}

/** What the cloud last stored of a phone. */
const stored = (life: Life, p: string) =>
  life.bed.cloud.bodies
    .filter((b) => b.delivered)
    .at(-1)
    ?.body.devices.find((d) => d.udid === p);
const held = (life: Life, p: string) => quarantined(life.bed.registry.facet(QUARANTINE).get(p));

describe('quarantine on the report bed', () => {
  let life: Life | undefined;
  afterEach(() => life?.cleanup());

  it('takes a phone that failed 3 times in 10 minutes out of service: UNAVAILABLE, Appium disabled, still shown; its message says why, since, until, the evidence; its incident file holds the failures', async () => {
    life = lifeBed({ phones: 4, seed: 1 });
    await life.boot();
    await flap(life, 'LIFE01', 3);
    await life.bed.advance(10_000, 1_000);
    const d = stored(life, 'LIFE01')!;
    expect(d.status).toBe('UNAVAILABLE');
    expect(d.support?.appiumDisabled).toBe(true);
    expect(d.isHidden).toBe(false);
    expect(d.message).toMatch(
      /quarantined since \d\d:\d\dZ until \d\d:\d\dZ \(20 min\): 3 failures in 10 min, blamed on its phone; back once a check passes after then, or now: device-agent quarantine release LIFE01; evidence: \d\d:\d\dZ inventory failed: did not answer; /,
    );
    // The others are untouched.
    for (const p of ['LIFE00', 'LIFE02', 'LIFE03']) expect(stored(life, p)).toMatchObject({ status: 'AVAILABLE' });
    const files = readdirSync(join(life.stateDir, INCIDENTS_DIR));
    expect(files).toHaveLength(1);
    const incident = incidentFrom(readFileSync(join(life.stateDir, INCIDENTS_DIR, files[0]!), 'utf8'))!;
    expect(incident).toMatchObject({ serial: 'LIFE01', kind: 'quarantine' });
    const failures = incident.events.filter((e) => e.text.startsWith('failure (inventory, blamed on its phone): inventory failed'));
    expect(failures.length).toBeGreaterThanOrEqual(3);
    expect(life.bed.stats.counter(QUARANTINES).get('phone')).toBe(1);
  }, 60_000);

  it("words its evidence whole, the agent's own (a cut inventory's words, src/platforms/android/inventory/probe.ts), within the message's limit; no line blames the phone for them", async () => {
    const log = captureLogger();
    life = lifeBed({ phones: 2, seed: 1, logger: log.logger });
    const cut = 'the inventory did not finish within 20000 ms (the device is slow, or one of its commands hung): 0 of 14 sections arrived.';
    life.bed.source.failureText = cut;
    await life.boot();
    await flap(life, 'LIFE01', 3);
    await life.bed.advance(10_000, 1_000);
    const message = stored(life, 'LIFE01')!.message!;
    expect(message).toMatch(
      /^quarantined since .*: 3 failures in 10 min, blamed on its phone; back once a check passes after then, or now: device-agent quarantine release LIFE01; evidence: /,
    );
    expect(message.split(`inventory failed: ${cut}`)).toHaveLength(4);
    expect([...message].length).toBeLessThanOrEqual(STRING_LIMITS.message);
    expect(log.lines().filter((l) => String(l.msg).includes('longer than the agent sends'))).toEqual([]);
  }, 60_000);

  it('never counts failures blamed on its hub: a hub that drops its phones three times quarantines none of them', async () => {
    life = lifeBed({ phones: 4, seed: 1 });
    await life.boot();
    for (let i = 0; i < 3; i++) {
      life.hub('1-1', true);
      life.start('wedge', 'LIFE00');
      await life.bed.advance(90_000, 1_000);
      life.end('LIFE00');
      life.hub('1-1', false);
      await life.bed.advance(90_000, 1_000);
    }
    expect(held(life, 'LIFE00')).toBe(false);
    expect(held(life, 'LIFE01')).toBe(false);
  }, 60_000);

  it('a booked phone is never taken out, over random failures and bookings; once free it is; one gone from under its session is taken out booked', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 20, max: 200 })), { minLength: 4, maxLength: 10 }), async (steps) => {
        const booked = new Set(['LIFE01']);
        const l = lifeBed({ phones: 2, seed: 2, booked });
        try {
          await l.boot();
          let everHeldWhileBooked = false;
          for (const [wedge, seconds] of steps) {
            if (wedge) l.start('wedge', 'LIFE01');
            await l.bed.advance(seconds * 1000, 1_000);
            l.end('LIFE01');
            await l.bed.advance(30_000, 1_000);
            if (held(l, 'LIFE01') || stored(l, 'LIFE01')?.message?.includes('quarantined since')) everHeldWhileBooked = true;
          }
          expect(everHeldWhileBooked).toBe(false);
        } finally {
          l.cleanup();
        }
      }),
      { numRuns: 8 },
    );
    const booked = new Set(['LIFE01']);
    life = lifeBed({ phones: 2, seed: 3, booked });
    await life.boot();
    await flap(life, 'LIFE01', 3);
    // The hold goes out with the next report, and says why.
    await life.bed.advance(61_000, 1_000);
    expect(held(life, 'LIFE01')).toBe(false);
    expect(stored(life, 'LIFE01')?.message).toMatch(/not taken out of service though it keeps failing: the cloud says it is booked/);
    // Gone from under its session: out, booked or not.
    await flap(life, 'LIFE01', 2);
    life.start('unplug', 'LIFE01');
    await life.bed.advance(5_000, 1_000);
    expect(held(life, 'LIFE01')).toBe(true);
    life.end('LIFE01');
    // And a booked phone left free again is taken out on its next failures.
    booked.clear();
    const other = lifeBed({ phones: 2, seed: 4, booked: new Set(['LIFE01']) });
    try {
      await other.boot();
      await flap(other, 'LIFE01', 3);
      expect(held(other, 'LIFE01')).toBe(false);
      other.booked.clear();
      await flap(other, 'LIFE01', 3);
      expect(held(other, 'LIFE01')).toBe(true);
    } finally {
      other.cleanup();
    }
  }, 240_000);

  it('a quarantined phone that recovers is back in service within one check after its quarantine ends', async () => {
    life = lifeBed({ phones: 2, seed: 5 });
    await life.boot();
    await flap(life, 'LIFE01', 3);
    const entry = life.bed.registry.facet(QUARANTINE).get('LIFE01')!;
    expect(quarantined(entry)).toBe(true);
    const until = entry.until!;
    const states = life.shared.get(PHONE_STATE)!;
    // Healthy from now on: it stays out until its time is over.
    await life.bed.advance(until - life.bed.clock.wall() - 1_000, 1_000);
    expect(states.now('LIFE01')?.state).toBe('quarantined');
    expect(stored(life, 'LIFE01')?.status).toBe('UNAVAILABLE');
    // One check: the schedule's report, every minute.
    await life.bed.advance(61_000 + 2_000, 1_000);
    expect(held(life, 'LIFE01')).toBe(false);
    expect(stored(life, 'LIFE01')).toMatchObject({ status: 'AVAILABLE', support: { appiumDisabled: false } });
    expect(states.now('LIFE01')?.state).toBe('in_service');
    expect(life.bed.registry.facet(QUARANTINE).get('LIFE01')?.released?.by).toBe('expiry');
  }, 60_000);

  it('held twice as long each time it comes back and fails again, up to the ceiling', async () => {
    life = lifeBed({ phones: 2, seed: 6, set: { 'quarantine.maxHoldMinutes': 60 } });
    await life.boot();
    const holds: number[] = [];
    for (let round = 0; round < 4; round++) {
      await flap(life, 'LIFE01', 3);
      const e = life.bed.registry.facet(QUARANTINE).get('LIFE01')!;
      expect(quarantined(e)).toBe(true);
      holds.push(Math.round((e.until! - e.since!) / MIN));
      await life.bed.advance(e.until! - life.bed.clock.wall() + 70_000, 1_000);
      expect(held(life, 'LIFE01')).toBe(false);
    }
    expect(holds).toEqual([20, 40, 60, 60]);
  }, 120_000);

  it("an operator's release (a request file in the state directory) puts it back within a second and the next report; the failures before it do not count again", async () => {
    life = lifeBed({ phones: 2, seed: 7 });
    await life.boot();
    await flap(life, 'LIFE01', 3);
    expect(held(life, 'LIFE01')).toBe(true);
    writeAtomically(join(life.stateDir, QUARANTINE_REQUESTS_DIR, 'r1.json'), JSON.stringify({ release: 'LIFE01', by: 'ops', at: Date.now() }));
    await life.bed.advance(1_000, 500);
    expect(held(life, 'LIFE01')).toBe(false);
    expect(readdirSync(join(life.stateDir, QUARANTINE_REQUESTS_DIR))).toEqual([]);
    await life.bed.advance(3_000, 500);
    expect(stored(life, 'LIFE01')?.status).toBe('AVAILABLE');
    expect(life.bed.registry.facet(QUARANTINE).get('LIFE01')?.released?.by).toBe('operator');
    // One more failure is not a fourth.
    await flap(life, 'LIFE01', 1);
    expect(held(life, 'LIFE01')).toBe(false);
  }, 60_000);
});
