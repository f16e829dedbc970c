import { describe, expect, it } from 'vitest';
import { CloudAuthError, CloudRejectedError } from '../../src/cloud/errors.js';
import { silentLogger } from '../../src/log/logger.js';
import { Scheduler } from '../../src/timing/scheduler.js';
import { captureLogger } from '../log/capture.js';
import { reportBed } from './bed.js';

// What the report path does when the cloud refuses, on virtual time (moved
// from test/e2e/reliability.test.ts, which waited 65 s and 12 s of real
// time for them): the planner's decisions on the real registry, reporter
// and report loop, the schedule every 5 minutes.

/** Virtual time (ms) of the next scheduled report: the bed's schedule at its node's offset in the period (src/timing/spread.ts). */
function nextScheduled(bed: ReturnType<typeof reportBed>): number {
  const s = new Scheduler({ expression: '*/5 * * * *', jitterMs: 0, nodeId: 'n1', onTick: () => undefined, logger: silentLogger(), clock: bed.clock });
  s.start();
  const at = s.nextRunAt()!;
  s.stop();
  return bed.time.now + at - bed.clock.wall();
}

/** The bed at 1 s past a scheduled report's time (before the loop starts), so that the next is the whole period away; returns when that is. */
async function justAfterTick(bed: ReturnType<typeof reportBed>): Promise<number> {
  await bed.advance(nextScheduled(bed) - bed.time.now + 1_000, 1_000);
  return nextScheduled(bed);
}

describe('the cloud refuses a device that is then unplugged', () => {
  it('sends no report storm once its retry time has passed: the UNPLUGGED report, then nothing until the schedule', async () => {
    const log = captureLogger('info');
    const bed = reportBed({ logger: log.logger });
    bed.cloud.refuse.set('REFUSED1', 'missing required capability: platformVersion');
    const tick = await justAfterTick(bed);
    bed.loop.start();
    bed.source.list(['KEEP0001', 'REFUSED1'], 'device', true);
    await bed.advance(5_000);
    expect(bed.sent()).toEqual([['KEEP0001', 'REFUSED1']]);
    expect(log.lines().some((l) => String(l.msg).includes('the cloud did not store device REFUSED1'))).toBe(true);

    bed.source.list(['KEEP0001'], 'device', true);
    const t0 = bed.time.now;
    expect(tick - t0).toBeGreaterThan(65_000);
    // Far past the device's own retry time (60 s), up to just before the next scheduled report (5 min).
    await bed.advance(tick - bed.time.now - 100);
    const after = bed.cloud.bodies.filter((b) => b.at >= t0);
    // The UNPLUGGED report and nothing more; before the fix, about 50 a second.
    expect(after.map((b) => b.body.devices.map((d) => `${d.udid} ${d.status}`))).toEqual([['KEEP0001 AVAILABLE', 'REFUSED1 UNPLUGGED']]);
    await bed.advance(1_000);
    expect(bed.cloud.bodies.filter((b) => b.at >= t0)).toHaveLength(2);
  });
});

describe('a report the cloud rejects with a 4xx', () => {
  it('is not resent before the next scheduled report: resending the same body cannot help', async () => {
    const log = captureLogger('info');
    const bed = reportBed({ logger: log.logger });
    bed.cloud.failWith = new CloudRejectedError('PUT /devices', 422, '{"error":"unprocessable"}');
    const tick = await justAfterTick(bed);
    bed.loop.start();
    bed.source.list(['FOURXX01'], 'device', true);
    await bed.advance(5_000);
    expect(bed.cloud.attempts).toHaveLength(1);
    const line = log.lines().find((l) => String(l.msg).startsWith('report not delivered'));
    expect(String(line?.msg)).toMatch(/next scheduled report/);
    // Until just before the schedule's report (5 min): not one more PUT.
    await bed.advance(tick - bed.time.now - 100);
    expect(bed.cloud.attempts).toHaveLength(1);
    await bed.advance(1_000);
    expect(bed.cloud.attempts).toHaveLength(2);
  });
});

describe('a key the cloud refuses (issue 61)', () => {
  it('is named by /healthz from the first refusal, with what to do, in one line of sentences counting it; healthy again once a report is delivered', async () => {
    const log = captureLogger('info');
    const bed = reportBed({ logger: log.logger });
    bed.loop.start();
    bed.source.list(['KEY00001'], 'device', true);
    await bed.advance(5_000);
    expect(bed.views.health().ok).toBe(true);

    // The key is revoked: the next report (a plug) is refused.
    bed.cloud.failWith = new CloudAuthError('PUT /devices', 401);
    bed.source.list(['KEY00001', 'KEY00002'], 'device', true);
    await bed.advance(5_000);
    const refused = bed.views.health();
    expect(refused.ok).toBe(false);
    expect(refused.brief).toEqual(['cloud refused the credentials (HTTP 401): fix DEVICE_AGENT_USERNAME or the API key and restart the agent']);
    const lines = () => log.lines().filter((l) => String(l.msg).startsWith('report not delivered'));
    expect(lines()).toHaveLength(1);
    // It read "... account).; it is sent again ..." with failures: 0 (the backoff's count, which a refusal leaves at 0).
    expect(lines()[0]).toMatchObject({ level: 'error', failures: 1 });
    expect(String(lines()[0]!.msg)).toMatch(
      /^report not delivered: PUT \/devices: the cloud rejected the credentials \(401 Unauthorized\)\. Check DEVICE_AGENT_USERNAME .* account\)\. Fix the setting it names and restart the agent/,
    );
    expect(String(lines()[0]!.msg)).not.toMatch(/\.;/);

    // Twenty minutes of scheduled reports refused alike: still the refusal, never "last report too old".
    await bed.advance(20 * 60_000, 1_000);
    expect(bed.cloud.attempts.length).toBeGreaterThanOrEqual(5);
    expect(bed.views.health().brief).toEqual(refused.brief);

    bed.cloud.failWith = undefined;
    bed.source.list(['KEY00001'], 'device', true);
    await bed.advance(5_000);
    expect(bed.views.health()).toMatchObject({ ok: true, brief: [] });
  });

  it('a 403 names the account and its rights; a 404 the base URL', async () => {
    for (const [error, brief] of [
      [new CloudAuthError('PUT /devices', 403), /^cloud refused the account \(HTTP 403\): check the credentials and that the account may report devices/],
      [new CloudRejectedError('PUT /devices', 404, 'not found'), /^cloud answered 404: DEVICE_AGENT_BASE_URL is likely not its v1 root/],
    ] as const) {
      const bed = reportBed();
      bed.cloud.failWith = error;
      bed.loop.start();
      bed.source.list(['KEY00003'], 'device', true);
      await bed.advance(5_000);
      expect(bed.views.health().brief).toEqual([expect.stringMatching(brief)]);
    }
  });
});

// Moved from test/e2e/run-recovery.test.ts (7 s of real time counting PUTs).
describe('a slow cloud and a report asked for every second', () => {
  it('never has two reports in flight and coalesces the requests into one follow-up', async () => {
    const bed = reportBed({ schedule: '* * * * * *' });
    bed.cloud.delayMs = 1_500;
    bed.loop.start();
    bed.source.list(['COAL0001'], 'device', true);
    await bed.advance(60_000);
    const at = bed.cloud.attempts;
    expect(bed.cloud.maxInFlight).toBe(1);
    // One report asked for every second, each answered in 1.5 s: one follows another, never overlapping, none left waiting.
    for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(1_500);
    expect(at.length).toBeGreaterThanOrEqual(10);
    expect(at.length).toBeLessThanOrEqual(40);
  });
});

// Moved from test/e2e/run-recovery.test.ts (6.5 s of real time on a 2 s schedule, where the schedule's own reports could hide a resend without a fresh inventory).
describe('a device the cloud does not store', () => {
  it('is logged once per distinct message and inventoried afresh before each resend', async () => {
    const log = captureLogger('info');
    // The schedule far away (every 5 min, from 1 s past a tick): the resends are the device's own retries.
    const bed = reportBed({ logger: log.logger });
    bed.cloud.refuse.set('FAIL0001', 'missing required capability: battery');
    await justAfterTick(bed);
    bed.loop.start();
    bed.source.list(['FAIL0001'], 'device', true);
    await bed.advance(2_000);
    expect(bed.sent()).toContainEqual(['FAIL0001']);
    const asked = bed.source.asked.length;
    const first = bed.cloud.bodies.length;
    await bed.advance(4 * 60_000);
    const warnings = () => log.lines().filter((l) => l.udid === 'FAIL0001' && l.level === 'warn');
    expect(warnings()).toHaveLength(1);
    expect(String(warnings()[0]!.msg)).toContain('missing required capability: battery');
    // Resent, each time with a fresh inventory of it.
    const resends = bed.cloud.bodies.length - first;
    expect(resends).toBeGreaterThanOrEqual(2);
    expect(bed.source.asked.slice(asked).filter((keys) => keys.includes('android/FAIL0001'))).toHaveLength(resends);

    bed.cloud.refuse.set('FAIL0001', 'quota exceeded');
    await bed.advance(60_000);
    expect(warnings().map((l) => String(l.msg).includes('quota exceeded'))).toEqual([false, true]);
    bed.cloud.refuse.clear();
    await bed.advance(5 * 60_000);
    expect(log.lines().filter((l) => String(l.msg).includes('stored device FAIL0001 again'))).toHaveLength(1);
  });
});
