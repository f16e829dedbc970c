import { describe, expect, it } from 'vitest';
import { Reporter, type ReportSink } from '../../src/agent/reporter.js';
import { AgentStats } from '../../src/agent/stats.js';
import { UnpluggedLedger } from '../../src/agent/unplugged.js';
import { CloudAuthError, CloudUnavailableError } from '../../src/cloud/errors.js';
import { FailedDevicePolicy } from '../../src/cloud/failed-devices.js';
import type { DeviceInfo, Machine, ReportAnswer, ReportBody } from '../../src/cloud/types.js';
import { silentLogger } from '../../src/log/logger.js';

const machine = { hostname: 'h' } as Machine;
const device = (udid: string): DeviceInfo => ({ udid, serialNumber: udid, state: 'device', status: 'AVAILABLE', platformName: 'ANDROID', isAndroid: true, isIos: false });

/** A sink whose answers the test releases one by one. */
class GatedSink implements ReportSink {
  readonly bodies: ReportBody[] = [];
  inFlight = 0;
  maxInFlight = 0;
  private gates: Array<(answer: ReportAnswer | Error) => void> = [];

  putDevices(body: ReportBody): Promise<ReportAnswer> {
    this.bodies.push(structuredClone(body));
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    return new Promise((resolve, reject) => {
      this.gates.push((answer) => {
        this.inFlight--;
        if (answer instanceof Error) reject(answer);
        else resolve(answer);
      });
    });
  }

  async release(answer: ReportAnswer | Error = { failedDevices: [] }): Promise<void> {
    while (this.gates.length === 0) await new Promise((r) => setTimeout(r, 1));
    this.gates.shift()!(answer);
  }
}

function reporter(sink: ReportSink, devices: () => DeviceInfo[], followUps: Array<[number, string]> = []) {
  const refreshes: unknown[] = [];
  const r = new Reporter({
    nodeId: 'n1',
    cloud: sink,
    collectDevices: async (refresh) => {
      refreshes.push(refresh);
      return devices();
    },
    collectMachine: async () => machine,
    failed: new FailedDevicePolicy(),
    unplugged: new UnpluggedLedger(),
    stats: new AgentStats(),
    logger: silentLogger(),
    deadline: () => Date.now() + 60_000,
    onFollowUp: (at, reason) => followUps.push([at, reason]),
  });
  return { r, refreshes };
}

describe('Reporter', () => {
  it('runs one report at a time and coalesces requests into one follow-up with the latest state', async () => {
    const sink = new GatedSink();
    let current = [device('A')];
    const { r, refreshes } = reporter(sink, () => current);
    const first = r.request('schedule');
    await new Promise((res) => setTimeout(res, 5));
    current = [device('A'), device('B')];
    const second = r.request('devices changed', new Set(['B']));
    const third = r.request('devices changed', new Set(['C']));
    expect(second).toBe(third);
    await sink.release();
    await first;
    await sink.release();
    const outcome = await second;
    expect(sink.bodies).toHaveLength(2);
    expect(sink.maxInFlight).toBe(1);
    expect(sink.bodies[1]!.devices.map((d) => d.udid)).toEqual(['A', 'B']);
    expect(refreshes[1]).toEqual(new Set(['B', 'C']));
    expect(outcome.delivered).toBe(true);
  });

  it('a full refresh wins over partial ones when coalesced', async () => {
    const sink = new GatedSink();
    const { r, refreshes } = reporter(sink, () => [device('A')]);
    void r.request('start');
    const next = r.request('devices changed', new Set(['A']));
    void r.request('schedule', 'all');
    await sink.release();
    await sink.release();
    await next;
    expect(refreshes).toEqual(['all', 'all']);
  });

  it('asks for a resend after a failure, growing the delay, and not after an auth error', async () => {
    const sink = new GatedSink();
    const followUps: Array<[number, string]> = [];
    const { r } = reporter(sink, () => [device('A')], followUps);
    const a = r.request('x');
    await sink.release(new CloudUnavailableError('PUT /devices', 'the cloud answered 503', { status: 503 }));
    expect((await a).delivered).toBe(false);
    const b = r.request('x');
    await sink.release(new CloudUnavailableError('PUT /devices', 'the cloud answered 503', { status: 503 }));
    await b;
    const c = r.request('x');
    await sink.release(new CloudAuthError('PUT /devices', 401));
    await c;
    expect(followUps.map(([, reason]) => reason)).toEqual(['resend after failure', 'resend after failure']);
    const [[at1], [at2]] = followUps as [[number, string], [number, string]];
    expect(at2 - at1).toBeGreaterThanOrEqual(4_000);
  });

  it('sends an unplugged device once as UNPLUGGED after a delivered report', async () => {
    const sink = new GatedSink();
    let current = [device('A'), device('B')];
    const { r } = reporter(sink, () => current);
    const a = r.request('x');
    await sink.release();
    await a;
    current = [device('A')];
    const b = r.request('x');
    await sink.release();
    await b;
    const c = r.request('x');
    await sink.release();
    await c;
    expect(sink.bodies.map((body) => body.devices.map((d) => `${d.udid}:${d.status}`))).toEqual([
      ['A:AVAILABLE', 'B:AVAILABLE'],
      ['A:AVAILABLE', 'B:UNPLUGGED'],
      ['A:AVAILABLE'],
    ]);
  });
});
