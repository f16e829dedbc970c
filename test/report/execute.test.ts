import { describe, expect, it } from 'vitest';
import { execute } from '../../src/report/execute.js';
import { PresenceLedger } from '../../src/devices/presence.js';
import type { DeviceInfo } from '../../src/cloud/types.js';
import type { CollectRequest, DeviceSource } from '../../src/platforms/source.js';
import { systemClock } from '../../src/util/clock.js';
import { captureLogger } from '../log/capture.js';
import { androidPhone, fakeSource } from '../support/devices.js';

const device = androidPhone;

const source = (devices: DeviceInfo[]): DeviceSource => fakeSource(async () => devices);

const request = { refresh: 'all' } as unknown as CollectRequest;

describe('execute: a source’s devices enter the report path bounded (issue 35)', () => {
  it('clips a long value with a note in the message and one line; leaves out an oversized identity with one line; the rest as they are', async () => {
    const { logger, lines } = captureLogger();
    const plain = device('PLAIN001', { deviceName: 'Lab phone' });
    const out = await execute(
      source([plain, device('LONGNAME', { deviceName: 'N'.repeat(4 * 1024 * 1024), message: 'charging' }), device('U'.repeat(300))]),
      request,
      { registry: { list: () => [] }, presence: new PresenceLedger(), clock: systemClock, logger, timeoutMs: undefined },
    );
    expect(out.devices.map((d) => d.udid)).toEqual(['PLAIN001', 'LONGNAME']);
    expect(out.devices[0]).toBe(plain);
    const long = out.devices[1]!;
    expect([...long.deviceName!].length).toBeLessThanOrEqual(256);
    expect(long.message).toMatch(/^charging; the phone gave a value longer than the agent sends, clipped: deviceName$/);
    const warned = lines().map((l) => String(l.msg));
    expect(warned.filter((m) => m.includes('device LONGNAME gave values longer than the agent sends (deviceName)'))).toHaveLength(1);
    const left = warned.filter((m) => m.includes('is left out of the report'));
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/its udid is 300 characters long, over the limit of 256/);
    expect(left[0]!.length).toBeLessThan(400);
  });
});
