import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DaemonBed } from './daemon-bed.js';
import { SimUsbmuxd } from '../sim-ios/usbmuxd.js';
import { devicesOf, udidsOf } from '../support/reports.js';
import { sleep } from '../support/wait.js';

// Issue 42: a lone plug or unplug soon after a report is reported within 2 s
// (README), as the report budget lets it go (docs/design/fleet.md, report
// budget). Before, a fixed 5 s gap after every report held a plug 1.5 s after
// the start report for 3.4 s, an unplug 1.5 s after a report for 3.5 s, an
// iPhone's plug for 5.0 s. `device-agent run` in its own process, the real
// adb server with simulated phones, the simulated usbmuxd, the cloud double;
// each delay is the report's arrival at the cloud double after the event.

const bed = new DaemonBed();
const mux = new SimUsbmuxd();

beforeAll(async () => {
  await bed.start();
  await mux.start();
});
afterEach(async () => {
  for (const p of [...mux.phones.values()]) mux.unplug(p);
  await bed.reset();
});
afterAll(async () => {
  await bed.stop();
  await mux.dispose();
});

const EVENT_AFTER_REPORT_MS = 1_500;
/** Until 1.5 s after the cloud double received `at`. */
const untilAfter = (at: number) => sleep(Math.max(0, at + EVENT_AFTER_REPORT_MS - Date.now()));

describe('a lone change soon after a report', () => {
  it('a plug 1.5 s after the start report, then an unplug 1.5 s after that report, each reported within 2 s', async () => {
    await bed.plug('LONE0001');
    bed.run({ DEVICE_AGENT_SCHEDULE: '0 0 * * *' });
    const start = await bed.cloud.waitForPut((r) => udidsOf(r).includes('LONE0001'), 15_000);

    await untilAfter(start.receivedAt);
    const plugged = await bed.plug('LONE0002');
    const pluggedAt = Date.now();
    const withNew = await bed.cloud.waitForPut((r) => r.receivedAt >= pluggedAt && udidsOf(r).includes('LONE0002'), 10_000);
    expect(withNew.receivedAt - pluggedAt, 'plug 1.5 s after the start report').toBeLessThan(2_000);

    await untilAfter(withNew.receivedAt);
    await bed.adb.disconnect(plugged.port);
    const unpluggedAt = Date.now();
    const gone = await bed.cloud.waitForPut((r) => devicesOf(r).some((d) => d.udid === 'LONE0002' && d.status === 'UNPLUGGED'), 10_000);
    expect(gone.receivedAt - unpluggedAt, 'unplug 1.5 s after a report').toBeLessThan(2_000);
    expect(udidsOf(gone)).toContain('LONE0001');
  });

  it("an iPhone's plug 1.5 s after the start report, reported within 2 s", async () => {
    await bed.plug('LONE0003');
    bed.run({ ...mux.env, DEVICE_AGENT_SCHEDULE: '0 0 * * *' });
    const start = await bed.cloud.waitForPut((r) => udidsOf(r).includes('LONE0003'), 15_000);

    await untilAfter(start.receivedAt);
    const phone = mux.plug({ profile: 'iphone-13-ios16' });
    const pluggedAt = Date.now();
    const withNew = await bed.cloud.waitForPut((r) => devicesOf(r).some((d) => d.udid === phone.udid && d.status === 'AVAILABLE'), 10_000);
    expect(withNew.receivedAt - pluggedAt, 'iPhone plug 1.5 s after the start report').toBeLessThan(2_000);
  });
});
