import { describe, expect, it } from 'vitest';
import { evaluateHealth } from '../../src/status/health.js';
import { formatMetrics, MAX_LABEL_CHARS } from '../../src/status/metrics.js';

describe('formatMetrics', () => {
  it('clips a label value to its limit, so that no value makes a scrape large (issue 35)', () => {
    const text = formatMetrics([{ name: 'm', help: 'h', type: 'gauge', samples: [{ labels: { udid: 'u'.repeat(100_000) }, value: 1 }] }]);
    expect(text).toContain(`m{udid="${'u'.repeat(MAX_LABEL_CHARS - 1)}…"} 1`);
    expect(text.length).toBeLessThan(MAX_LABEL_CHARS + 100);
  });

  it('writes the Prometheus text format with escaped label values', () => {
    const text = formatMetrics([
      { name: 'device_agent_devices', help: 'Devices by state.', type: 'gauge', samples: [{ labels: { state: 'no permissions "x"\\y' }, value: 2 }] },
      { name: 'device_agent_reports_total', help: 'Reports.', type: 'counter', samples: [{ value: 5 }] },
      { name: 'device_agent_last_success_timestamp_seconds', help: 'Never yet.', type: 'gauge', samples: [] },
    ]);
    expect(text).toBe(
      [
        '# HELP device_agent_devices Devices by state.',
        '# TYPE device_agent_devices gauge',
        'device_agent_devices{state="no permissions \\"x\\"\\\\y"} 2',
        '# HELP device_agent_reports_total Reports.',
        '# TYPE device_agent_reports_total counter',
        'device_agent_reports_total 5',
        '# HELP device_agent_last_success_timestamp_seconds Never yet.',
        '# TYPE device_agent_last_success_timestamp_seconds gauge',
        '',
      ].join('\n'),
    );
  });
});

describe('evaluateHealth', () => {
  const base = { now: 1_000_000, startedAt: 900_000, sourceProblems: [], listingDelivered: true, maxReportAgeMs: 120_000 };

  it('is healthy with a recent report and live tracking', () => {
    expect(evaluateHealth({ ...base, lastSuccessAt: 950_000 })).toEqual({ ok: true, reasons: [], brief: [] });
  });

  it('names each reason when unhealthy', () => {
    const stale = evaluateHealth({ ...base, lastSuccessAt: 800_000, lastFailure: 'PUT /devices: 503' });
    expect(stale.ok).toBe(false);
    expect(stale.reasons[0]).toMatch(/200 s ago \(limit 120 s\); last failure: PUT \/devices: 503/);
    const down = evaluateHealth({ ...base, lastSuccessAt: 950_000, sourceProblems: ['adb device tracking is down: no adb server at tcp:127.0.0.1:5037'] });
    expect(down.reasons).toEqual(['adb device tracking is down: no adb server at tcp:127.0.0.1:5037']);
    expect(evaluateHealth({ ...base }).reasons[0]).toMatch(/no report delivered since the start 100 s ago/);
  });

  it('names a refused key from the first refusal, even with a report delivered a moment before, in place of the age of the last report (issue 61)', () => {
    const refusal = {
      status: 401,
      credentials: true,
      since: 990_000,
      message: 'PUT /devices: the cloud rejected the credentials (401 Unauthorized). Check ...',
    };
    const fresh = evaluateHealth({ ...base, lastSuccessAt: 980_000, refusal });
    expect(fresh.ok).toBe(false);
    expect(fresh.brief).toEqual(['cloud refused the credentials (HTTP 401): fix DEVICE_AGENT_USERNAME or the API key and restart the agent']);
    expect(fresh.reasons).toEqual([`the cloud has refused every report since ${new Date(990_000).toISOString()}: ${refusal.message}`]);
    // Later, the reports refused all along: still the cause, not its consequence.
    expect(evaluateHealth({ ...base, now: 2_000_000, lastSuccessAt: 980_000, refusal }).brief).toEqual(fresh.brief);
    // Beside a source's problem, each is said.
    expect(evaluateHealth({ ...base, lastSuccessAt: 980_000, refusal, sourceProblems: ['adb server not answering: x'] }).brief).toEqual([
      'adb server not answering',
      fresh.brief[0],
    ]);
  });

  it('is not healthy on a delivered report made before every source had listed its devices (issue 33)', () => {
    const early = evaluateHealth({ ...base, lastSuccessAt: 950_000, listingDelivered: false });
    expect(early.ok).toBe(false);
    expect(early.reasons[0]).toMatch(/no report made after every source had listed its devices has been delivered since the start 100 s ago/);
  });
});
