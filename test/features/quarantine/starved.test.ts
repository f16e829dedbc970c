import { afterEach, describe, expect, it } from 'vitest';
import { QUARANTINE, quarantined } from '../../../src/devices/quarantine.js';
import { PHONE_STATE } from '../../../src/devices/phone-state.js';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { availabilityFeature } from '../../../src/features/availability/feature.js';
import { quarantineFeature } from '../../../src/features/quarantine/feature.js';
import { VirtualTime } from '../../support/virtual-time.js';
import { SharedParts } from '../../../src/util/shared-parts.js';
import { phone } from '../../agent/bed.js';
import { actionBed, featureContext } from '../../support/feature-bed.js';
import { lifeBed } from '../availability/life.js';

// Many phones' inventories missing their deadline together are the host's (issue 71, measurement 5): on a loaded host
// every phone's inventory missed its deadline, and a phone with no fault of its own was quarantined, "3 failures in 2
// min, blamed on its phone".

type Life = ReturnType<typeof lifeBed>;
const held = (life: Life, p: string) => quarantined(life.bed.registry.facet(QUARANTINE).get(p));

/** Every phone given fails its inventories for 90 s, then answers for 90 s, `times` over. */
async function together(life: Life, phones: readonly string[], times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    for (const p of phones) life.start('wedge', p);
    await life.bed.advance(90_000, 1_000);
    for (const p of phones) life.end(p);
    await life.bed.advance(90_000, 1_000);
  }
}

describe('inventories that fail together', () => {
  let life: Life | undefined;
  afterEach(() => life?.cleanup());

  it('are the host’s: no phone is quarantined for them, and the in-service clock blames the host, not the phones', async () => {
    life = lifeBed({ phones: 6, seed: 1 });
    await life.boot();
    const states: string[] = [];
    for (let i = 0; i < 3; i++) {
      for (const p of life.phones) life.start('wedge', p);
      await life.bed.advance(45_000, 1_000);
      const now = life.shared.get(PHONE_STATE)!.now('LIFE03')!;
      states.push(`${now.state}/${now.layer}`);
      await life.bed.advance(45_000, 1_000);
      for (const p of life.phones) life.end(p);
      await life.bed.advance(90_000, 1_000);
    }
    expect(life.phones.filter((p) => held(life!, p))).toEqual([]);
    expect(states).toEqual(Array(3).fill('in_transition/host'));
  }, 60_000);

  it('a phone failing on its own beside them is still its own: quarantined as before', async () => {
    life = lifeBed({ phones: 6, seed: 1 });
    await life.boot();
    await together(life, ['LIFE01'], 3);
    await life.bed.advance(10_000, 1_000);
    expect(held(life, 'LIFE01')).toBe(true);
    expect(life.phones.filter((p) => p !== 'LIFE01' && held(life!, p))).toEqual([]);
  }, 60_000);
});

describe('failures heard one by one before they are seen to be together', () => {
  it('those counted before the host was found starved are the host’s too: the phone that failed first is not quarantined for them', async () => {
    const time = new VirtualTime();
    const clock = time.clock();
    const registry = new DeviceRegistry();
    const shared = new SharedParts();
    const ctx = featureContext({ registry, clock, shared, set: { 'quarantine.failures': 2 } });
    // The in-service clock runs, as in the daemon: quarantine blames each failure as it does.
    const clockFeature = availabilityFeature(ctx);
    await clockFeature.start?.();
    const bed = actionBed(quarantineFeature, ctx, { booking: { ask: async () => ({ booked: false }) } });
    bed.start();
    const phones = ['S1', 'S2', 'S3', 'S4'];
    registry.sync('android', new Map(phones.map((p) => [p, 'device'])));
    const answer = (p: string) => registry.readings.answered(`android/${p}`, phone(p), clock.wall(), clock.monotonic());
    for (const p of phones) answer(p);
    for (let round = 0; round < 2; round++) {
      for (const p of phones) registry.readings.asked(`android/${p}`, clock.monotonic());
      time.advance(10_000);
      // S1 misses its deadline first, and the action looks before the others' misses come in.
      for (const p of phones) {
        registry.readings.failed(`android/${p}`, 'did not answer within 10 s', clock.wall(), clock.monotonic());
        bed.devicesChanged();
        await bed.settled();
        time.advance(200);
      }
      time.advance(60_000);
      for (const p of phones) answer(p);
      bed.devicesChanged();
      await bed.settled();
    }
    expect(phones.filter((p) => quarantined(registry.facet(QUARANTINE).get(p)))).toEqual([]);
    await bed.stop();
    await clockFeature.stop?.();
  });
});
