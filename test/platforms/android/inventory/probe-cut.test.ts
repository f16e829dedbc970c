import { Parser } from '@devicefarmer/adbkit';
import { describe, expect, it } from 'vitest';
import type { AdbClient } from '../../../../src/platforms/android/adb/client.js';
import { ShellCutError, ShellTimeoutError } from '../../../../src/platforms/android/adb/errors.js';
import { DeviceProber } from '../../../../src/platforms/android/inventory/probe.js';
import { marker } from '../../../../src/platforms/android/inventory/script.js';
import { NOTHING_DISABLED } from './support.js';

// Which failed inventories the prober calls a cut (its connection closed under it), for the in-service clock to date
// from the cut rather than back (src/features/availability/availability.ts). Only the link closing is a cut (or adb refusing the session for the device as it is then: offline, closed, gone): a flood
// cut at the byte limit and a hang found at the deadline are the phone's own failures. tiers.e2e.test.ts shows the
// closed connection and the deadline against the real adb server; a flood of the 8 MB limit is shown here.

/** A phone whose every session fails with `error`, after a first section arrived whole. */
function phoneFailing(error: (partial: string) => Error) {
  return {
    shell: () => Promise.reject(error(`${marker('props')}\n[ro.product.model]: [Pixel 8]\n${marker('battery')}\n`)),
  } as unknown as AdbClient;
}

/** A phone whose output stops before the end marker without an error: the stream closed. */
const phoneEndingEarly = {
  shell: () => Promise.resolve({ output: `${marker('props')}\n[ro.product.model]: [Pixel 8]\n`, bytes: 40 }),
} as unknown as AdbClient;

async function cutAfterOneInventory(adb: AdbClient) {
  const prober = new DeviceProber(adb, { timeoutMs: 10_000, config: { addedToCloud: true, support: NOTHING_DISABLED } });
  await prober.probe('p1', 'device').catch(() => undefined);
  return [prober.wasCut('p1'), prober.wasCut('p1')];
}

describe('DeviceProber.wasCut', () => {
  it('is true, once, when the connection ended or failed under the inventory', async () => {
    expect(await cutAfterOneInventory(phoneFailing((p) => new ShellCutError('p1', p, 60, 'ended')))).toEqual([true, false]);
    expect(await cutAfterOneInventory(phoneFailing((p) => new ShellCutError('p1', p, 60, 'failed', 'ECONNRESET')))).toEqual([true, false]);
    expect(await cutAfterOneInventory(phoneFailing(() => new ShellCutError('p1', '', 0, 'failed', 'ECONNRESET')))).toEqual([true, false]);
    expect(await cutAfterOneInventory(phoneEndingEarly)).toEqual([true, false]);
  });

  it('is true when adb refused the session for the device as it is now (a FAIL of adb for its transport: offline, closed, not found)', async () => {
    for (const reason of ['device offline', 'closed', "device 'p1' not found"])
      expect(await cutAfterOneInventory(phoneFailing(() => new Parser.FailError(reason))), reason).toEqual([true, false]);
  });

  it('is false for output the phone flooded past the byte limit, and for a hang found at the deadline', async () => {
    expect(await cutAfterOneInventory(phoneFailing((p) => new ShellCutError('p1', p, 8 * 1024 * 1024, 'truncated')))).toEqual([false, false]);
    expect(await cutAfterOneInventory(phoneFailing((p) => new ShellTimeoutError('p1', 10_000, p)))).toEqual([false, false]);
    expect(await cutAfterOneInventory(phoneFailing(() => new ShellTimeoutError('p1', 10_000, '', 'open')))).toEqual([false, false]);
  });
});
