import { describe, expect, it } from 'vitest';
import { buildFeatures } from '../../../src/agent/features.js';
import type { DeviceInfo } from '../../../src/cloud/types.js';
import { annotateAll, featureMetrics, judgeAll } from '../../../src/devices/feature.js';
import { AgentStats } from '../../../src/stats/agent-stats.js';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { formatMetrics } from '../../../src/status/metrics.js';
import type { Clock, Timers } from '../../../src/util/clock.js';
import { systemClock } from '../../../src/util/clock.js';
import { captureLogger } from '../../log/capture.js';
import { androidPhone } from '../../support/devices.js';
import { shippedHealth } from '../health/defaults.js';
import { loadSettings } from '../../../src/config/load.js';
import type { HealthSettings } from '../../../src/features/health/rules.js';
import type { Logger } from '../../../src/log/logger.js';
import type { AndroidControl } from '../../../src/platforms/android/control.js';
import { featureContext } from '../../support/feature-bed.js';

// Several phones hot within minutes, through the features as registered
// (src/agent/features.ts), on a clock the test moves.

const hot = shippedHealth.batteryHotCelsius;

/** The features' context as the daemon builds it, with these health settings; no kernel log, sysfs or readiness baseline. */
function contextOf(registry: DeviceRegistry, logger: Logger, clock: Clock & Timers, health: HealthSettings) {
  const settings = loadSettings({
    env: {},
    overrides: new Map<string, unknown>([
      ['usb.kernelLog', ''],
      ['usb.sysfsRoot', '/nonexistent'],
      ['readiness.checks', []],
    ]),
  });
  return featureContext<AndroidControl>({ settings: { ...settings, health }, registry, logger, clock });
}

function phone(udid: string, temperature: number, message?: string): DeviceInfo {
  return { udid, state: 'device', status: 'AVAILABLE', battery: { temperature }, ...(message ? { message } : {}) } as DeviceInfo;
}

function bed(health = shippedHealth) {
  let now = 0;
  const clock: Clock & Timers = { ...systemClock, monotonic: () => now };
  const log = captureLogger();
  const features = buildFeatures(contextOf(new DeviceRegistry(), log.logger, clock, health));
  const hostLines = () => log.lines().filter((l) => l.cause === 'host-hot' || l.cause === 'host-hot-over' || /^host: /.test(String(l.msg)));
  const metrics = () => formatMetrics(featureMetrics(features, new AgentStats()).metrics());
  return { features, advance: (ms: number) => (now += ms), hostLines, metrics };
}

describe('host-level hot batteries, as registered', () => {
  it('four phones hot within minutes: one warning naming them and the room, their messages point at the host, the metrics say so; one line when they cool', async () => {
    const b = bed();
    const temps = [hot + 3, hot + 2, hot + 4, hot + 1];
    let devices = [phone('A', hot - 8), phone('B', hot - 8), phone('C', hot - 8), phone('D', hot - 8), phone('E', hot - 10)];
    annotateAll(b.features, devices);
    // They turn hot one after the other, a minute apart, and stay so for 20 reports.
    for (let i = 0; i < 4; i++) {
      b.advance(60_000);
      devices = devices.map((d, j) => (j === i ? phone(d.udid, temps[i]!, `battery at ${temps[i]} °C (limit ${hot} °C)`) : d));
      annotateAll(b.features, devices);
    }
    let out: DeviceInfo[] = [];
    for (let i = 0; i < 20; i++) {
      b.advance(30_000);
      out = annotateAll(b.features, devices);
    }
    const lines = b.hostLines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'warn', count: 3 });
    expect(String(lines[0]!.msg)).toMatch(
      /^host: 3 phones have hot batteries .* \(A \d+ °C, B \d+ °C, C \d+ °C\): one cause on this host, not 3 phone problems; check the room temperature/,
    );
    // The fourth joined: its message, as each hot one's, keeps its own word and points at the host.
    for (const udid of ['A', 'B', 'C', 'D'])
      expect(out.find((d) => d.udid === udid)!.message).toMatch(
        /^battery at \d+ °C \(limit \d+ °C\); one of 4 phones on this host whose batteries turned hot together: most likely the room or the host/,
      );
    expect(out.find((d) => d.udid === 'E')!.message).toBeUndefined();
    expect(await b.metrics()).toMatch(/^device_agent_host_hot_phones 4$/m);
    expect(await b.metrics()).toMatch(/^device_agent_host_hot_episode 1$/m);
    // The room cools.
    b.advance(60_000);
    out = annotateAll(
      b.features,
      devices.map((d) => phone(d.udid, hot - 10)),
    );
    b.advance(60_000);
    annotateAll(
      b.features,
      devices.map((d) => phone(d.udid, hot - 10)),
    );
    expect(b.hostLines()).toHaveLength(2);
    expect(b.hostLines()[1]).toMatchObject({ level: 'info' });
    expect(String(b.hostLines()[1]!.msg)).toMatch(/^host: phones hot together is over after \d+ min: no phone is hot now$/);
    expect(out.every((d) => d.message === undefined)).toBe(true);
    expect(await b.metrics()).toMatch(/^device_agent_host_hot_phones 0$/m);
    expect(await b.metrics()).toMatch(/^device_agent_host_hot_episode 0$/m);
  });

  it('two hot phones, or three turning hot an hour apart, are phone problems: no host line, no note', async () => {
    const b = bed();
    const out = annotateAll(b.features, [phone('A', hot + 2), phone('B', hot + 2), phone('C', hot - 10)]);
    expect(out.every((d) => d.message === undefined)).toBe(true);
    b.advance(60 * 60_000);
    annotateAll(b.features, [phone('A', hot + 2), phone('B', hot + 2), phone('C', hot + 2)]);
    expect(b.hostLines()).toEqual([]);
    expect(await b.metrics()).toMatch(/^device_agent_host_hot_phones 3$/m);
    expect(await b.metrics()).toMatch(/^device_agent_host_hot_episode 0$/m);
  });

  it("the lab's own size and window: two phones hot within 2 minutes with health.hostHotPhones 2 and hostHotWindowMinutes 2; not when 5 minutes apart", () => {
    const near = bed({ ...shippedHealth, hostHotPhones: 2, hostHotWindowMinutes: 2 });
    annotateAll(near.features, [phone('A', hot + 2), phone('B', hot - 10)]);
    near.advance(90_000);
    annotateAll(near.features, [phone('A', hot + 2), phone('B', hot + 2)]);
    expect(near.hostLines()).toHaveLength(1);
    expect(near.hostLines()[0]).toMatchObject({ level: 'warn', count: 2 });
    const apart = bed({ ...shippedHealth, hostHotPhones: 2, hostHotWindowMinutes: 2 });
    annotateAll(apart.features, [phone('A', hot + 2), phone('B', hot - 10)]);
    apart.advance(5 * 60_000);
    annotateAll(apart.features, [phone('A', hot + 2), phone('B', hot + 2)]);
    expect(apart.hostLines()).toEqual([]);
  });

  it('a phone that is not ready carries no new reading and is not counted', () => {
    const b = bed();
    const off: DeviceInfo = { ...phone('C', hot + 5), state: 'offline' };
    annotateAll(b.features, [phone('A', hot + 2), phone('B', hot + 2), off]);
    expect(b.hostLines()).toEqual([]);
  });
});

describe('host-level hot batteries with the health monitor, as the daemon wires them (src/agent/build.ts)', () => {
  // The report's judges, then its annotate passes (src/report/reporter.ts), over the features as registered.
  const shell = { shell: new Set(['android'] as const) };
  it('a phone turning hot while the host episode holds gets no warning of its own: the host line names the cause, its message points there', () => {
    let now = 0;
    const clock: Clock & Timers = { ...systemClock, monotonic: () => now };
    const log = captureLogger();
    const serials = ['A', 'B', 'C', 'D', 'E', 'F'];
    const registry = new DeviceRegistry();
    registry.sync('android', new Map(serials.map((s) => [s, 'device'])));
    for (const s of serials) registry.readings.identify(`android/${s}`, s);
    const features = buildFeatures(contextOf(registry, log.logger, clock, shippedHealth));
    const temps = new Map(serials.map((s) => [s, hot - 8]));
    const report = () =>
      annotateAll(
        features,
        judgeAll(
          features,
          serials.map((s) => ({ ...androidPhone(s), battery: { status: 'CHARGING', temperature: temps.get(s)!, percentage: '80' } })),
          shell,
        ),
      );
    report();
    // The room warms: one phone after the other turns hot, a minute apart.
    let out: DeviceInfo[] = [];
    for (const s of serials) {
      now += 60_000;
      temps.set(s, hot + 2);
      out = report();
    }
    const ownWarnings = log.lines().filter((l) => l.problem === 'battery_hot' && l.level === 'warn');
    // The first two warned as they turned hot (nothing said it was the host yet); the third's report started the
    // episode, whose line names it; the three after it did not warn either.
    expect(ownWarnings.map((l) => l.udid)).toEqual(['A', 'B']);
    expect(log.lines().filter((l) => /^host: 3 phones have hot batteries/.test(String(l.msg)))).toHaveLength(1);
    for (const d of out) expect(d.message).toMatch(/^battery at \d+ °C \(limit \d+ °C\).*; one of 6 phones on this host whose batteries turned hot together/);
  });

  it('phones turning hot in one report are one host line and no warning each; a lone hot phone still warns', () => {
    const log = captureLogger();
    const serials = ['A', 'B', 'C', 'D', 'E'];
    const registry = new DeviceRegistry();
    registry.sync('android', new Map(serials.map((s) => [s, 'device'])));
    for (const s of serials) registry.readings.identify(`android/${s}`, s);
    const features = buildFeatures(contextOf(registry, log.logger, { ...systemClock, monotonic: () => 0 }, shippedHealth));
    const report = (temps: Record<string, number>) =>
      annotateAll(
        features,
        judgeAll(
          features,
          Object.entries(temps).map(([s, t]) => ({ ...androidPhone(s), battery: { status: 'CHARGING', temperature: t, percentage: '80' } })),
          shell,
        ),
      );
    const own = () => log.lines().filter((l) => l.problem === 'battery_hot' && l.level === 'warn');
    report({ A: hot + 2, B: hot + 2, C: hot + 2, D: hot - 8 });
    expect(own()).toEqual([]);
    expect(log.lines().filter((l) => /^host: 3 phones have hot batteries/.test(String(l.msg)))).toHaveLength(1);
    // The host cools; later one phone alone turns hot: its own warning, said once.
    report({ A: hot - 8, B: hot - 8, C: hot - 8, D: hot - 8 });
    report({ A: hot - 8, B: hot - 8, C: hot - 8, D: hot - 8, E: hot + 2 });
    report({ A: hot - 8, B: hot - 8, C: hot - 8, D: hot - 8, E: hot + 2 });
    expect(own().map((l) => l.udid)).toEqual(['E']);
    expect(own()[0]!.msg).toMatch(/^device E: battery at \d+ °C/);
  });
});
