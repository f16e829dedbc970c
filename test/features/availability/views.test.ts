import { describe, expect, it } from 'vitest';
import { InServiceClock } from '../../../src/features/availability/clock.js';
import { HOUR_MS } from '../../../src/features/availability/tally.js';
import { daySummary, doctorItems } from '../../../src/features/availability/views.js';

const DAY = Date.UTC(2026, 0, 5);

/** Three phones on one hub's ports for two hours: A and C in service throughout, B out for its own trouble from the first hour on. */
function lab(outAt = HOUR_MS): InServiceClock {
  const c = new InServiceClock((mono) => DAY + mono);
  for (const [udid, port] of [
    ['A', '1-1.1'],
    ['B', '1-1.2'],
    ['C', '1-1.3'],
  ] as const)
    c.observe(udid, `serial-${udid}`, { state: 'in_service' }, 0, { port });
  c.observe('B', 'serial-B', { state: 'needs_person', layer: 'phone' }, outAt, { port: '1-1.2' });
  c.confirm('A', 2 * HOUR_MS);
  c.confirm('C', 2 * HOUR_MS);
  c.creditAll(2 * HOUR_MS);
  return c;
}

describe("the in-service clock's doctor lines and day's line", () => {
  it('name the phone least in service with its layer, and the port out more than the others on its hub', () => {
    const items = doctorItems(lab(), DAY + 2 * HOUR_MS, 2 * HOUR_MS, 0.9);
    expect(items.map((i) => [i.status, i.finding])).toEqual([
      ['warn', 'in service 83.3% of the last 24 hours, 3 phones; out of service: phone 16.7%'],
      ['ok', 'least in service: serial-B 50.0% (phone)'],
      ['warn', 'port whose phones are out more than the others on their hub: 1-1.2 50.0% (hub 1-1 100.0%)'],
    ]);
  });

  it('say the same of the day in its one line, and nothing of a day nothing was counted', () => {
    const c = lab();
    expect(daySummary(c, DAY, DAY + 24 * HOUR_MS)?.text).toBe(
      'in service on 2026-01-05: 83.3% of the time of 3 phones; out of service: phone 16.7%; least in service: serial-B 50.0% (phone); ports out more than their hub: 1-1.2 50.0%',
    );
    expect(daySummary(c, DAY - 24 * HOUR_MS, DAY)).toBeUndefined();
  });

  it('name a port 10 points or more below the mean of the others on its hub, not one 8 points below', () => {
    const ports = (outAt: number) => doctorItems(lab(outAt), DAY + 2 * HOUR_MS, 2 * HOUR_MS, 0.5).at(-1)!.finding;
    // B's port in service 85% of the two hours, its neighbours 100%: 15 points below.
    expect(ports(1.7 * HOUR_MS)).toBe('port whose phones are out more than the others on their hub: 1-1.2 85.0% (hub 1-1 100.0%)');
    // 92%: 8 points below, within what a hub's ports differ by.
    expect(ports(1.84 * HOUR_MS)).not.toMatch(/^port whose phones/);
  });
});
