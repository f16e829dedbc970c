import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SimDevice } from '../sim/sim-device.js';
import { DaemonBed, scrapeMetrics } from './daemon-bed.js';
import { reported } from '../support/reports.js';

// The booking gate in the running daemon, through the real adb server and
// the cloud double: a wedged phone that would be kicked is left alone while
// the cloud says it is booked, and kicked once the booking ends. The double
// counts the status requests, which stay within the bound. How long a hold
// lasts, and the hold when the cloud cannot say, are recovery's decisions,
// shown on virtual time in test/features/recovery/recovery.test.ts (the 503
// read as "cannot say": test/cloud/booking-status.e2e.test.ts).

const bed = new DaemonBed();
const { cloud } = bed;

beforeAll(() => bed.start());
afterEach(() => bed.reset());
afterAll(() => bed.stop());

function daemon(phone: SimDevice) {
  return bed.run({
    DEVICE_AGENT_NETWORK_DEVICES: phone.serial,
    DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0',
    DEVICE_AGENT_SCHEDULE: '*/2 * * * * *',
    DEVICE_AGENT_PROBE_TIMEOUT_SECONDS: '2',
    DEVICE_AGENT_RECOVERY_KICK_AFTER_SHELL_FAILURES: '2',
    // Short, so that the end of a booking is seen within seconds; the per-minute bound stays the default 4.
    DEVICE_AGENT_RECOVERY_BOOKING_CACHE_SECONDS: '2',
  });
}

const held = (text: string, action: string, reason: string): number =>
  Number(new RegExp(`^device_agent_recovery_held_total\\{action="${action}",reason="${reason}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
const kicks = (text: string): number => Number(/^device_agent_recovery_actions_total\{action="kick",result="ok"\} (\d+)$/m.exec(text)?.[1] ?? 0);

/** At most `max` status requests in any 60 s, at the double's clock. */
function expectWithinBound(max: number): void {
  const times = cloud.statusRequests().map((r) => r.receivedAt);
  for (const t of times) expect(times.filter((u) => u > t - 60_000 && u <= t).length).toBeLessThanOrEqual(max);
}

describe('a booked phone', () => {
  it('is left alone while booked, with a message saying so, and kicked once the booking ends', async () => {
    const phone = await bed.networkPhone('BOOK0001');
    const agent = daemon(phone);
    await cloud.waitForPut(
      reported('BOOK0001', (d) => d.status === 'AVAILABLE'),
      20_000,
    );
    const accepted = phone.connectionsAccepted;

    cloud.setBooked('BOOK0001', true);
    phone.wedgeTransport();
    await cloud.waitForPut(
      reported('BOOK0001', (d) => /left alone: booked in the cloud/.test(d.message ?? '')),
      60_000,
    );
    // Held: that it stays held as long as the booking lasts is recovery's
    // decision, shown on virtual time (test/features/recovery/recovery.test.ts).
    expect(agent.logs().filter((l) => /kicking the adb transport/.test(String(l.msg)))).toEqual([]);
    expect(phone.connectionsAccepted).toBe(accepted);
    const during = await scrapeMetrics(agent);
    expect(kicks(during)).toBe(0);
    expect(held(during, 'kick', 'booked')).toBeGreaterThanOrEqual(1);
    expect(cloud.statusRequests('BOOK0001').length).toBeGreaterThanOrEqual(1);
    const line = agent.logs().find((l) => l.msg !== undefined && /left alone: booked in the cloud/.test(String(l.msg)));
    expect(line).toMatchObject({ level: 'info', serial: phone.serial, action: 'kick', reason: 'booked' });

    cloud.setBooked('BOOK0001', false);
    const ended = Date.now();
    await agent.waitForLog((l) => l.serial === phone.serial && /kicking the adb transport/.test(String(l.msg)), 60_000);
    await cloud.waitForPut((r) => r.receivedAt > ended && reported('BOOK0001', (d) => d.status === 'AVAILABLE' && !d.message)(r), 30_000);
    expect(phone.connectionsAccepted).toBeGreaterThan(accepted);
    expect(kicks(await scrapeMetrics(agent))).toBe(1);
    expectWithinBound(4);
  }, 180_000);
});
