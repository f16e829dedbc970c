import { describe, expect, it } from 'vitest';
import { READINESS_FACTS } from '../../../src/devices/readiness-facts.js';
import { reportBed } from '../../agent/bed.js';
import { featureSeries } from '../../support/feature-bed.js';

// A readiness verdict stands until a reading changes it (issue 71, measurement 1): with the slow facts read only now
// and then, the inventories between read none, and the report, READY and /metrics said not ready right after a slow
// read and nothing in the reports between.

/** A full report asked for and carried out on the bed's virtual time. */
async function reported(bed: ReturnType<typeof reportBed>): Promise<void> {
  const outcome = bed.loop.report('test');
  await bed.advance(3_000, 250);
  await outcome;
}

describe('a readiness verdict between two readings of it', () => {
  it('stands in every report, in READY and in the gauges, until a reading says otherwise', async () => {
    const bed = reportBed({
      schedule: '* * * * *',
      set: { 'readiness.checks': ['developerMode'] },
      daemon: { booking: { ask: async () => ({ booked: false }) } },
    });
    await bed.startDaemon();
    bed.loop.start();
    // The first inventory reads the slow facts: Developer Mode off.
    bed.source.facts.set('P1', { developerMode: 'false' });
    bed.source.list(['P1'], 'device', true);
    await bed.advance(5_000, 250);
    bed.source.facts.delete('P1');
    const readiness = bed.features.find((f) => f.name === 'readiness')!;
    const failing = () =>
      featureSeries(readiness, ['P1'])
        .find((m) => m.name === 'device_agent_readiness_failing_devices')!
        .samples.find((s) => s.labels?.check === 'developerMode')!.value;
    const seen: string[] = [];
    for (let i = 0; i < 4; i++) {
      // The inventories between read no readiness facts (the fast tier's), as a source's reading that left them out.
      bed.registry.facet(READINESS_FACTS).delete('android/P1');
      await reported(bed);
      const p1 = bed.cloud.bodies.at(-1)!.body.devices.find((d) => d.udid === 'P1')!;
      seen.push(`${p1.support?.appiumDisabled} ${/Developer Mode is off/.test(p1.message ?? '')} ${failing()}`);
      expect(readiness.cells!(p1, bed.registry.get('android/P1'))).toEqual({ readiness: 'not ready: developerMode' });
    }
    expect(seen).toEqual(Array(4).fill('true true 1'));
    // A reading that finds it on again ends it.
    bed.source.facts.set('P1', { developerMode: 'true' });
    await reported(bed);
    const back = bed.cloud.bodies.at(-1)!.body.devices.find((d) => d.udid === 'P1')!;
    expect([back.support?.appiumDisabled, back.message ?? '', failing()]).toEqual([false, '', 0]);
    await bed.stopDaemon();
  });
});
