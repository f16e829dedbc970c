import { afterEach, describe, expect, it } from 'vitest';
import { AdbClient } from '../../../../src/platforms/android/adb/client.js';
import { DeviceWatcher } from '../../../../src/platforms/android/adb/device-watcher.js';
import type { ListingChange as DeviceChange } from '../../../../src/platforms/source.js';
import { captureLogger } from '../../../log/capture.js';
import { ScriptedAdbServer } from '../../../doctor/scripted-adb.js';

// An adb endpoint that lists devices but refuses to track them (an adb proxy
// or tunnel answering host:track-devices with "unknown host service", as the
// scripted server answers anything it has no script for). The watcher used to
// know nothing until its 30 s reconciliation, and the first report carried no
// device (issue 34, finding 2).

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let server: ScriptedAdbServer | undefined;
let watcher: DeviceWatcher | undefined;

afterEach(async () => {
  watcher?.stop();
  await server?.stop();
});

async function until(what: () => boolean, ms = 5_000): Promise<void> {
  for (let waited = 0; !what() && waited < ms; waited += 20) await sleep(20);
}

describe('DeviceWatcher, when the adb server refuses tracking', () => {
  it('lists the devices at once, polls for changes, asks for tracking again now and then, and says so once', async () => {
    const answers: Record<string, string> = { 'host:devices': 'PHONE01\tdevice\nPHONE02\tunauthorized\n' };
    server = new ScriptedAdbServer(answers);
    const port = await server.start();
    const { logger, lines } = captureLogger();
    watcher = new DeviceWatcher(new AdbClient({ host: '127.0.0.1', port, source: 'test' }), {
      reconcileMs: 30_000,
      logger,
      pollMs: 200,
      retryTrackingMs: 300,
    });
    const changes: DeviceChange[] = [];
    let connected = 0;
    watcher.on('change', (c: DeviceChange[]) => changes.push(...c));
    watcher.on('connected', () => connected++);
    await watcher.start();
    await until(() => watcher!.listed);

    expect(Object.fromEntries(watcher.devices)).toEqual({ PHONE01: 'device', PHONE02: 'unauthorized' });
    expect(watcher.polling).toBe(true);
    expect(watcher.alive).toBe(true);
    expect(connected).toBe(1);

    // A plug shows at the next poll, not at the reconciliation 30 s on.
    answers['host:devices'] = 'PHONE01\tdevice\nPHONE02\tdevice\nPHONE03\tdevice\n';
    await until(() => watcher!.devices.size === 3, 2_000);
    expect(changes).toContainEqual({ serial: 'PHONE03', to: 'device' });
    expect(changes).toContainEqual({ serial: 'PHONE02', from: 'unauthorized', to: 'device' });

    // Tracking is asked for again (the endpoint may be fixed), and the same refusal is not said again.
    await until(() => server!.requests.filter((r) => r === 'host:track-devices').length >= 3, 3_000);
    expect(server.requests.filter((r) => r === 'host:track-devices').length).toBeGreaterThanOrEqual(3);
    const warnings = lines().filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]!.msg)).toMatch(
      /refuses device tracking \(host:track-devices answered: .*unknown host service.*\); reading its device list every 0\.2 s instead/,
    );
  });
});
