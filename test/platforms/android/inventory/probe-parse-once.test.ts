import { describe, expect, it, vi } from 'vitest';
import type { AdbClient, ShellOptions } from '../../../../src/platforms/android/adb/client.js';
import { DeviceProber } from '../../../../src/platforms/android/inventory/probe.js';
import { props as propsProbe } from '../../../../src/platforms/android/inventory/probes/device.js';
import { marker } from '../../../../src/platforms/android/inventory/script.js';
import type { DeviceInfo } from '../../../../src/cloud/types.js';
import { fixture } from './fixture.js';
import { NOTHING_DISABLED } from './support.js';

// The property dump is the largest output of an inventory and the agent's
// busiest parser (`npm run bench`, CPU profile): a connection's first
// inventory hands its identity over early from the dump, and must not parse
// that same dump again at its end.

const dump = fixture('getprop', 'xiaomi-poco-f6-android15.txt');

/** A phone that answers any script: its dump in the props section, the other sections empty, in 4 KB chunks. */
const phone = {
  shell(_serial: string, script: string, options: ShellOptions) {
    const names = [...script.matchAll(/^m ([a-z0-9_]+);/gm)].map((m) => m[1]!);
    const output = names.map((name) => `${marker(name)}\n${name === 'props' ? `${dump}\n` : ''}`).join('');
    for (let at = 0; at < output.length; at += 4096) options.onData?.(Buffer.from(output.slice(at, at + 4096)));
    return Promise.resolve({ output, bytes: Buffer.byteLength(output) });
  },
} as unknown as AdbClient;

describe('DeviceProber: the property dump of a first inventory', () => {
  it('is parsed once: the identity given early and the inventory at its end both come from that one parse', async () => {
    // The probe's parser is the one way the prober reads a dump (as tiers.e2e.test.ts counts it); spied, not mocked.
    const parse = vi.spyOn(propsProbe, 'parse');
    try {
      const prober = new DeviceProber(phone, { timeoutMs: 10_000, config: { addedToCloud: true, support: NOTHING_DISABLED } });
      const early: DeviceInfo[] = [];
      const info = await prober.probe('f89a5ec6', 'device', 1, (identity) => early.push(identity));
      expect(early).toHaveLength(1);
      expect(early[0]).toMatchObject({ udid: info.udid, modelName: '24069PC21I', brandName: 'POCO' });
      expect(info).toMatchObject({ modelName: '24069PC21I', brandName: 'POCO', platformVersion: '15' });
      expect(parse.mock.calls.map(([text]) => text === dump)).toEqual([true]);
    } finally {
      parse.mockRestore();
    }
  });
});
