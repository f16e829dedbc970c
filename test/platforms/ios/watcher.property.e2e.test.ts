// Invariant: whatever plugs, unplugs and usbmuxd restarts happen (events
// lost while usbmuxd is down included, phones listed late after a restart), once things settle the watcher knows
// exactly the phones usbmuxd knows, and its 'change' events replay to that set.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ListingChange as DeviceChange } from '../../../src/platforms/source.js';
import { parseUsbmuxdAddress } from '../../../src/config/usbmuxd-address.js';
import { IosWatcher } from '../../../src/platforms/ios/watcher.js';
import { silentLogger } from '../../../src/log/logger.js';
import { SimUsbmuxd } from '../../sim-ios/usbmuxd.js';

type Step = { op: 'plug' } | { op: 'unplug'; pick: number } | { op: 'restart'; lose: number | undefined; lateMs: number } | { op: 'pause' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constant<Step>({ op: 'plug' }),
  fc.nat().map<Step>((pick) => ({ op: 'unplug', pick })),
  fc.record({ lose: fc.option(fc.nat(), { nil: undefined }), lateMs: fc.constantFrom(0, 0, 50, 150) }).map<Step>((r) => ({ op: 'restart', ...r })),
  fc.constant<Step>({ op: 'pause' }),
);

async function settle(check: () => boolean, timeoutMs = 3000): Promise<boolean> {
  const t0 = Date.now();
  while (!check()) {
    if (Date.now() - t0 > timeoutMs) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
}

describe('IosWatcher on random event sequences', () => {
  it('ends knowing exactly what usbmuxd knows', async () => {
    const mux = new SimUsbmuxd({ tcp: true });
    await mux.start();
    let n = 0;
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
          for (const p of [...mux.phones.values()]) mux.unplug(p);
          const watcher = new IosWatcher({
            address: parseUsbmuxdAddress(mux.address),
            reconcileMs: 60_000,
            stepTimeoutMs: 500,
            logger: silentLogger(),
            reconnectMinMs: 5,
            reconnectMaxMs: 40,
            // Short, so that a lost phone goes within the settle wait below; a late listing (lateMs) stays within it.
            awayGraceMs: 300,
          });
          const replay = new Set<string>();
          watcher.on('change', (cs: DeviceChange[]) => {
            for (const c of cs) {
              if (c.to) replay.add(c.serial);
              else replay.delete(c.serial);
            }
          });
          await watcher.start();
          try {
            for (const s of steps) {
              if (s.op === 'plug') mux.plug({ profile: 'iphone-13-ios16', udid: `PROP-${n++}` });
              else if (s.op === 'unplug') {
                const all = [...mux.phones.values()];
                if (all.length) mux.unplug(all[s.pick % all.length]!);
              } else if (s.op === 'restart') {
                await mux.stop();
                const all = [...mux.phones.values()];
                // A phone that goes while usbmuxd is down: no Detached reaches anyone.
                if (s.lose !== undefined && all.length) mux.phones.delete(all[s.lose % all.length]!.deviceId);
                // The phones listed again only lateMs after the socket is back, as a just-started usbmuxd lists them.
                await mux.restart(0, s.lateMs);
              } else await new Promise((r) => setTimeout(r, 5));
            }
            const expected = () => [...mux.phones.values()].map((p) => p.udid).sort();
            const known = () => [...watcher.devices.keys()].sort();
            await settle(() => watcher.alive && JSON.stringify(known()) === JSON.stringify(expected()));
            expect(known()).toEqual(expected());
            expect([...replay].sort()).toEqual(expected());
          } finally {
            watcher.stop();
          }
        }),
        { numRuns: 25 },
      );
    } finally {
      await mux.dispose();
    }
  }, 120_000);
});
