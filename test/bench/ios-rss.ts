// RSS that iOS support adds to an agent with no iPhones (budget 10 MB):
// each case in a fresh process that loads the agent's modules, starts the iOS
// watcher as the agent does, settles and reports RSS after a GC.
// Run: npm run build && node --expose-gc dist/test/bench/ios-rss.js
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median } from './measure.js';

const self = fileURLToPath(import.meta.url);
type Case = 'ios-off' | 'no-usbmuxd' | 'usbmuxd-no-iphones';

async function child(kind: Case, address: string): Promise<void> {
  await import('../../src/agent/agent.js');
  await import('../../src/cli/once.js');
  const { iosSource } = await import('../../src/platforms/ios/setup.js');
  const { DeviceRegistry } = await import('../../src/devices/registry.js');
  const { systemClock } = await import('../../src/util/clock.js');
  const { silentLogger } = await import('../../src/log/logger.js');
  const settings = {
    ios: kind !== 'ios-off',
    iosTimeoutSeconds: 5,
    reconcileSeconds: 30,
    probeConcurrency: 16,
    usbmuxdSocketAddress: undefined,
    slowFactsRefreshSeconds: 900,
  };
  const ios = iosSource(settings, { USBMUXD_SOCKET_ADDRESS: address }, silentLogger(), new DeviceRegistry(), systemClock);
  await ios?.start();
  if (ios) await ios.collect({ refresh: 'all' });
  await new Promise((r) => setTimeout(r, 500));
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((r) => setTimeout(r, 100));
  process.stdout.write(`${process.memoryUsage().rss}\n`);
  ios?.stop();
}

async function main(): Promise<void> {
  const [, , mode, kind, address] = process.argv;
  if (mode === '--child') return child(kind as Case, address ?? '');
  // Imported here only: the children must not load the simulator's plist library.
  const { SimUsbmuxd } = await import('../sim-ios/usbmuxd.js');
  const mux = new SimUsbmuxd();
  await mux.start();
  const runs = 5;
  const results: Record<string, number> = {};
  for (const kind of ['ios-off', 'no-usbmuxd', 'usbmuxd-no-iphones'] as Case[]) {
    const address = kind === 'usbmuxd-no-iphones' ? mux.address : 'UNIX:/nonexistent/usbmuxd';
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) {
      const r = spawnSync(process.execPath, ['--expose-gc', self, '--child', kind, address], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`${kind}: ${r.stderr}`);
      samples.push(Number(r.stdout.trim()));
    }
    results[kind] = median(samples);
  }
  await mux.dispose();
  const mb = (b: number) => (b / 2 ** 20).toFixed(1);
  const off = results['ios-off']!;
  for (const [k, v] of Object.entries(results)) console.log(`${k.padEnd(20)} RSS ${mb(v)} MB  (+${mb(v - off)} MB over ios-off, median of ${runs})`);
}

await main();
