import { describe, expect, it } from 'vitest';
import { REPORT_FAILURE_LOG_MS } from '../../src/report/run.js';
import { CloudProtocolError } from '../../src/cloud/errors.js';
import { REPORT_SUMMARY_MS } from '../../src/report/reporter.js';
import { FLAP_RULES } from '../../src/devices/flapping.js';
import { captureLogger } from '../log/capture.js';
import { reportBed } from './bed.js';

// A quiet log (issue 34, finding 7), on virtual time: steady state wrote one
// info line per report (1,440 a day per host), and a cloud answering every
// report with an HTML login page 7 to 10 warning lines a minute. Counted here
// per cause and per stated interval over hours of reports.

const HOUR = 3_600_000;
const atInfo = (l: Record<string, unknown>) => ['info', 'warn', 'error', 'fatal'].includes(String(l.level));

describe('a quiet log', () => {
  it('steady state: no info line per scheduled report, one summary an hour with the count', async () => {
    const log = captureLogger();
    const bed = reportBed({ logger: log.logger, schedule: '* * * * *' });
    bed.source.list(['P1', 'P2', 'P3'], 'device', false);
    bed.loop.start();
    await bed.advance(6 * HOUR, 1_000);
    // A report a minute went out all along.
    expect(bed.cloud.bodies.length).toBeGreaterThan(6 * 59);
    const info = log.lines().filter(atInfo);
    const delivered = info.filter((l) => l.msg === 'report delivered');
    // Only the start report (news) at info.
    expect(delivered.map((l) => l.reason)).toEqual(['start']);
    const summaries = info.filter((l) => /reports? without news \(scheduled, or only for the changes of flapping phones\) delivered/.test(String(l.msg)));
    expect(summaries.length).toBeGreaterThanOrEqual(5);
    expect(summaries.length).toBeLessThanOrEqual((6 * HOUR) / REPORT_SUMMARY_MS);
    expect(Number(summaries[0]!.reports)).toBeGreaterThanOrEqual(59);
    // Nothing else at info in steady state, whatever its cause.
    expect(info.length).toBe(1 + summaries.length);
  }, 120_000);

  it('a phone flapping for hours: no report line per change, the flapping summed up, then settled', async () => {
    const log = captureLogger();
    const bed = reportBed({ logger: log.logger, schedule: '* * * * *', flapLog: true });
    bed.source.list(['P1', 'P2'], 'device', false);
    bed.loop.start();
    await bed.advance(10_000);
    // P2 boot-loops: offline and back every 20 s for 2 hours (720 changes, a report for each).
    for (let i = 0; i < 360; i++) {
      bed.source.list(['P1', 'P2'], 'offline');
      await bed.advance(10_000, 1_000);
      bed.source.list(['P1', 'P2'], 'device');
      await bed.advance(10_000, 1_000);
    }
    await bed.advance(6 * 60_000, 1_000);
    // (MemSource.list says every listed phone changed; P1 flaps with it, which changes nothing of the count below.)
    const info = log.lines().filter(atInfo);
    const delivered = info.filter((l) => l.msg === 'report delivered');
    // The start, and the reports of the first changes before the phones count as flapping.
    expect(bed.cloud.bodies.length).toBeGreaterThan(300);
    expect(delivered.length).toBeLessThanOrEqual(1 + 3);
    const flapping = info.filter((l) => l.serial === 'P2' && /^device P2 changed state \d+ times/.test(String(l.msg)));
    // One when it starts, then one per 10 min: 13 in 2 hours.
    expect(flapping.length).toBeGreaterThanOrEqual(12);
    expect(flapping.length).toBeLessThanOrEqual(1 + (2 * HOUR) / FLAP_RULES.summaryMs);
    expect(info.filter((l) => l.serial === 'P2' && /^device P2 settled/.test(String(l.msg)))).toHaveLength(1);
  }, 120_000);

  it('a cloud answering every report with a login page: one line per 10 min at most, with the count', async () => {
    const log = captureLogger();
    const bed = reportBed({ logger: log.logger, schedule: '* * * * *' });
    bed.source.list(['P1'], 'device', false);
    bed.cloud.failWith = new CloudProtocolError('PUT /devices', 200, 'text/html', '<html><body>Sign in</body></html>', 'the answer is not JSON');
    bed.loop.start();
    const notDelivered = () => log.lines().filter((l) => atInfo(l) && String(l.msg).startsWith('report not delivered'));
    // Counted per interval of REPORT_FAILURE_LOG_MS: at most one line in each, over two hours.
    const perInterval: number[] = [];
    for (let i = 0; i < (2 * HOUR) / REPORT_FAILURE_LOG_MS; i++) {
      const before = notDelivered().length;
      await bed.advance(REPORT_FAILURE_LOG_MS, 1_000);
      perInterval.push(notDelivered().length - before);
    }
    // (The per-cause rate limiter behind every such line, src/log/limited.ts, runs on real time: here, where
    // hours pass in a second, it holds back the lines after its tenth; a daemon never reaches it this way.)
    expect(perInterval.every((n) => n <= 1)).toBe(true);
    expect(perInterval.slice(0, 10)).toEqual(Array(10).fill(1));
    const lines = notDelivered();
    // Many attempts failed (a report a minute, and resends between), each at debug after the first.
    const attempts = log.lines().filter((l) => String(l.msg).startsWith('report not delivered')).length;
    expect(attempts).toBeGreaterThan(100);
    expect(String(lines.at(-1)!.msg)).toMatch(/\(\d+ in a row; \d+ of them not logged since the last such line, at most one every 10 min\)/);
    // It comes back: one line saying so.
    bed.cloud.failWith = undefined;
    await bed.advance(5 * 60_000, 1_000);
    expect(log.lines().filter((l) => atInfo(l) && l.msg === 'report delivered').length).toBe(1);
  }, 120_000);
});
