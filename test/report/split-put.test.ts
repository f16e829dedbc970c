import { describe, expect, it } from 'vitest';
import { putSplitting, REMEMBER_MS, TOO_LARGE_MESSAGE, type PartSize, type ReportSink } from '../../src/report/split-put.js';
import { CloudRejectedError, CloudUnavailableError } from '../../src/cloud/errors.js';
import type { DeviceInfo, Machine, ReportAnswer, ReportBody } from '../../src/cloud/types.js';
import { captureLogger } from '../log/capture.js';
import { androidPhone } from '../support/devices.js';

const machine = { hostname: 'h' } as Machine;
const device = (udid: string, deviceName = 'phone'): DeviceInfo => ({
  ...androidPhone(udid),
  deviceName,
  modelName: 'Pixel 7',
});

/** A cloud behind a body limit, as nginx answers it: 413 for anything larger, no matter what it carries. */
class LimitedSink implements ReportSink {
  readonly stored = new Map<string, DeviceInfo>();
  readonly puts: ReportBody[] = [];
  constructor(private readonly maxBytes: number) {}

  putDevices(body: ReportBody): Promise<ReportAnswer> {
    this.puts.push(body);
    if (Buffer.byteLength(JSON.stringify(body)) > this.maxBytes) {
      return Promise.reject(new CloudRejectedError('PUT /devices', 413, '<html>413 Request Entity Too Large</html>'));
    }
    for (const d of body.devices) this.stored.set(d.udid, d);
    return Promise.resolve({ failedDevices: body.devices.filter((d) => d.udid === 'refused').map((d) => ({ udid: d.udid, message: 'no' })) });
  }
}

describe('a report too large for the cloud (413)', () => {
  it('goes whole when it fits: one PUT, nothing logged', async () => {
    const sink = new LimitedSink(100_000);
    const { logger, lines } = captureLogger();
    const body = { nodeId: 'n', machine, devices: [device('a'), device('b')] };
    const out = await putSplitting(sink, body, {}, logger);
    expect(out.parts).toBe(1);
    expect(sink.puts).toHaveLength(1);
    expect(lines().filter((l) => l.level === 'warn' || l.level === 40)).toHaveLength(0);
  });

  it('is split into halves until each fits; every device stored, failedDevices of every part kept, one log line', async () => {
    const devices = Array.from({ length: 8 }, (_, i) => device(i === 5 ? 'refused' : `p${i}`, 'x'.repeat(300)));
    const oneDevice = Buffer.byteLength(JSON.stringify({ nodeId: 'n', machine, devices: devices.slice(0, 2) }));
    const sink = new LimitedSink(oneDevice + 10); // two devices fit, three do not
    const { logger, lines } = captureLogger();
    const out = await putSplitting(sink, { nodeId: 'n', machine, devices }, {}, logger);
    expect([...sink.stored.keys()].sort()).toEqual(devices.map((d) => d.udid).sort());
    expect(out.answer.failedDevices).toEqual([{ udid: 'refused', message: 'no' }]);
    expect(out.trimmed).toEqual([]);
    // Whole (413), two halves of 4 (413), four quarters of 2.
    expect(out.parts).toBe(7);
    for (const put of sink.puts) expect(put).toMatchObject({ nodeId: 'n', machine });
    const said = lines().filter((l) => String(l.msg).includes('413'));
    expect(said).toHaveLength(1);
    expect(said[0]!.msg).toMatch(/in 7 parts/);
  });

  it('sends a device too large alone with its identity only and a message, the others whole', async () => {
    const huge = device('huge', 'y'.repeat(5000));
    const sink = new LimitedSink(2000);
    const { logger, lines } = captureLogger();
    const out = await putSplitting(sink, { nodeId: 'n', machine, devices: [device('a'), huge, device('b')] }, {}, logger);
    expect(sink.stored.get('a')).toEqual(device('a'));
    expect(sink.stored.get('b')).toEqual(device('b'));
    expect(sink.stored.get('huge')).toEqual({
      udid: 'huge',
      serialNumber: 'huge',
      state: 'device',
      status: 'AVAILABLE',
      platformName: 'ANDROID',
      isAndroid: true,
      isIos: false,
      message: TOO_LARGE_MESSAGE,
    });
    expect(out.trimmed).toEqual(['huge']);
    expect(lines().filter((l) => String(l.msg).includes('huge with its identity only'))).toHaveLength(1);
  });

  it('gives up, not forever, when even an identity is too large; other failures are not split', async () => {
    const sink = new LimitedSink(10);
    await expect(putSplitting(sink, { nodeId: 'n', machine, devices: [device('a'), device('b')] }, {}, captureLogger().logger)).rejects.toThrow(/413/);
    // whole, a, a's identity, then the first half fails for good
    expect(sink.puts.length).toBeLessThanOrEqual(4);

    let calls = 0;
    const down: ReportSink = {
      putDevices: () => {
        calls++;
        return Promise.reject(new CloudUnavailableError('PUT /devices', 'down', { status: 503 }));
      },
    };
    await expect(putSplitting(down, { nodeId: 'n', machine, devices: [device('a'), device('b')] }, {}, captureLogger().logger)).rejects.toThrow(/unavailable/);
    expect(calls).toBe(1);
  });

  it('remembers the part size: the next reports go in parts without a 413 first, and whole again after an hour', async () => {
    const devices = Array.from({ length: 8 }, (_, i) => device(`p${i}`, 'x'.repeat(300)));
    const two = Buffer.byteLength(JSON.stringify({ nodeId: 'n', machine, devices: devices.slice(0, 2) }));
    const sink = new LimitedSink(two + 10);
    const size: PartSize = {};
    const body = { nodeId: 'n', machine, devices };
    await putSplitting(sink, body, {}, captureLogger().logger, { size, now: 0 });
    expect(size.devices).toBe(2);

    sink.puts.length = 0;
    const { logger, lines } = captureLogger();
    const next = await putSplitting(sink, body, {}, logger, { size, now: 60_000 });
    expect(next.parts).toBe(4);
    expect(sink.puts.map((p) => p.devices.length)).toEqual([2, 2, 2, 2]);
    expect(lines().filter((l) => String(l.msg).includes('413'))).toHaveLength(0);

    // An hour on, the phone may be gone: whole first again (here still too large, so split and remembered anew).
    sink.puts.length = 0;
    await putSplitting(sink, body, {}, captureLogger().logger, { size, now: REMEMBER_MS + 1 });
    expect(sink.puts[0]!.devices).toHaveLength(8);
    expect(size.until).toBe(2 * REMEMBER_MS + 1);

    // Once the whole fits, it is forgotten.
    const roomy = new LimitedSink(1_000_000);
    await putSplitting(roomy, body, {}, captureLogger().logger, { size, now: 3 * REMEMBER_MS });
    expect(roomy.puts).toHaveLength(1);
    expect(size.devices).toBeUndefined();
  });
});
