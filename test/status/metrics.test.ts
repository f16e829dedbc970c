import { describe, expect, it, vi } from 'vitest';
import { evaluateHealth } from '../../src/status/health.js';
import { Exposition, formatMetrics, MAX_LABEL_CHARS } from '../../src/status/metrics.js';
import type { Metric } from '../../src/util/metric.js';

const families = (text: string) => [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => m[1]!);
const samples = (text: string) => text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));

describe('formatMetrics', () => {
  it('clips a label value to its limit, so that no value makes a scrape large (issue 35)', async () => {
    const text = await formatMetrics([{ name: 'm', help: 'h', type: 'gauge', samples: [{ labels: { udid: 'u'.repeat(100_000) }, value: 1 }] }]);
    expect(text).toContain(`m{udid="${'u'.repeat(MAX_LABEL_CHARS - 1)}…"} 1`);
    expect(text.length).toBeLessThan(MAX_LABEL_CHARS + 100);
  });

  it('writes the Prometheus text format with escaped label values, and leaves a value not known yet absent', async () => {
    const text = await formatMetrics([
      { name: 'device_agent_devices', help: 'Devices by state.', type: 'gauge', samples: [{ labels: { state: 'no permissions "x"\\y' }, value: 2 }] },
      { name: 'device_agent_reports_total', help: 'Reports.', type: 'counter', samples: [{ value: 5 }] },
      { name: 'device_agent_last_success_timestamp_seconds', help: 'Never yet.', type: 'gauge', samples: [] },
    ]);
    expect(text.split('\n').filter((l) => l !== '')).toEqual([
      '# HELP device_agent_devices Devices by state.',
      '# TYPE device_agent_devices gauge',
      'device_agent_devices{state="no permissions \\"x\\"\\\\y"} 2',
      '# HELP device_agent_reports_total Reports.',
      '# TYPE device_agent_reports_total counter',
      'device_agent_reports_total 5',
      '# HELP device_agent_last_success_timestamp_seconds Never yet.',
      '# TYPE device_agent_last_success_timestamp_seconds gauge',
    ]);
  });

  it('writes a value as a person reads it: no digits past what a double holds (issue 61)', async () => {
    // 243.762873 ms over 1000 is 0.24376287300000002 as a double, what /metrics printed before.
    const text = await formatMetrics([
      { name: 'a_seconds', help: 'h', type: 'gauge', samples: [{ value: 243.762873 / 1000 }] },
      { name: 'b_seconds', help: 'h', type: 'gauge', samples: [{ value: 0.1 + 0.2 }] },
      { name: 'c_seconds', help: 'h', type: 'gauge', samples: [{ value: 1795790049.017 }] },
      { name: 'd_bytes', help: 'h', type: 'gauge', samples: [{ value: 2 ** 53 - 1 }] },
    ]);
    expect(samples(text)).toEqual(['a_seconds 0.243762873', 'b_seconds 0.3', 'c_seconds 1795790049.017', `d_bytes ${2 ** 53 - 1}`]);
  });
});

describe('Exposition', () => {
  const gauge = (name: string, value: number, labels?: Record<string, string>): Metric => ({
    name,
    help: 'h',
    type: 'gauge',
    samples: [{ value, ...(labels ? { labels } : {}) }],
  });

  it('serves each scrape what the sources give then: a family gone from them goes, a new label is carried', async () => {
    const e = new Exposition();
    expect(samples(await e.text([gauge('a', 1), gauge('b', 2, { x: '1' })]))).toEqual(['a 1', 'b{x="1"} 2']);
    expect(samples(await e.text([gauge('b', 3, { x: '1', y: '2' })]))).toEqual(['b{x="1",y="2"} 3']);
    expect(families(await e.text([]))).toEqual([]);
  });

  it('refuses two families of one name rather than write one twice', async () => {
    await expect(new Exposition().text([gauge('a', 1), gauge('a', 2)])).rejects.toThrow(/two metric families are named a/);
  });

  it('adds the process series every Prometheus client exports once asked, beside its own (issue 61)', async () => {
    const e = new Exposition();
    expect(families(await e.text([gauge('device_agent_x', 1)]))).toEqual(['device_agent_x']);
    e.withProcessSeries();
    e.withProcessSeries();
    const text = await e.text([gauge('device_agent_x', 1)]);
    const names = families(text);
    for (const name of [
      'process_start_time_seconds',
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'process_open_fds',
      'process_max_fds',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_gc_duration_seconds',
      'nodejs_version_info',
      'device_agent_x',
    ])
      expect(names, name).toContain(name);
    // Gauges named like counters, which promtool check metrics refuses.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) expect(names).not.toContain(name);
    const start = Number(/^process_start_time_seconds (\d+)$/m.exec(text)?.[1]);
    expect(Math.abs(start - (Date.now() / 1000 - process.uptime()))).toBeLessThan(2);
    expect(Number(/^process_resident_memory_bytes (\d+)$/m.exec(text)?.[1])).toBeGreaterThan(1e6);
  });

  it("writes prom-client's own series as a person reads them too: process CPU seconds summed scrape by scrape (issue 61)", async () => {
    // prom-client adds each scrape's CPU microseconds as seconds: 0.1 then 0.2 is 0.30000000000000004 (CI printed
    // process_cpu_seconds_total 0.10943599999999999).
    const cpu = vi.spyOn(process, 'cpuUsage').mockReturnValue({ user: 0, system: 0 });
    try {
      const e = new Exposition();
      e.withProcessSeries();
      cpu.mockReturnValue({ user: 100_000, system: 0 });
      expect(await e.text([])).toMatch(/^process_cpu_seconds_total 0\.1$/m);
      cpu.mockReturnValue({ user: 300_000, system: 0 });
      const text = await e.text([gauge('device_agent_x', 1, { le: '0.30000000000000004 s' })]);
      expect(text).toMatch(/^process_cpu_seconds_total 0\.3$/m);
      expect(text).toMatch(/^process_cpu_user_seconds_total 0\.3$/m);
      // A label is the source's words, left as they are.
      expect(text).toContain('device_agent_x{le="0.30000000000000004 s"} 1');
    } finally {
      cpu.mockRestore();
    }
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
