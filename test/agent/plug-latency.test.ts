import { describe, expect, it } from 'vitest';
import type { Platform } from '../../src/devices/record.js';
import { reportBed } from './bed.js';

// A lone plug or unplug soon after a report is reported within 2 s (README),
// as the report budget lets it go (docs/design/fleet.md, report budget): the
// whole report path on virtual time, where no load can move it. The seams
// (adb's tracker and usbmuxd's Listen into a running daemon) are
// test/e2e/run.test.ts's and test/e2e/ios-mixed.test.ts's, and the real-time
// figure is `npm run bench`'s plug to report.

const EVENT_AFTER_REPORT_MS = 1_500;

describe.each<[Platform, string]>([
  ['android', 'device'],
  ['ios', 'paired'],
])('a lone change soon after a report (%s)', (platform, ready) => {
  it('a plug 1.5 s after the start report, then an unplug 1.5 s after that report, each reported within 2 s', async () => {
    const bed = reportBed({ platforms: [[platform, ready]], schedule: '0 0 * * *' });
    const { source, cloud, time } = bed;
    const present = (at: number, udid: string) =>
      cloud.bodies.find((b) => b.at >= at && b.body.devices.some((d) => d.udid === udid && d.status !== 'UNPLUGGED'));
    const gone = (at: number, udid: string) => cloud.bodies.find((b) => b.at >= at && b.body.devices.some((d) => d.udid === udid && d.status === 'UNPLUGGED'));
    source.list(['LONE0001']);
    bed.loop.start();
    await bed.advance(1_000);
    const start = present(0, 'LONE0001')!;
    expect(start, 'the start report').toBeDefined();

    await bed.advance(start.at + EVENT_AFTER_REPORT_MS - time.now);
    source.list(['LONE0001', 'LONE0002'], ready, true);
    const pluggedAt = time.now;
    await bed.advance(3_000);
    const withNew = present(pluggedAt, 'LONE0002');
    expect(withNew && withNew.at - pluggedAt, 'plug 1.5 s after the start report').toBeLessThanOrEqual(2_000);

    await bed.advance(withNew!.at + EVENT_AFTER_REPORT_MS - time.now);
    source.list(['LONE0001'], ready, true);
    const unpluggedAt = time.now;
    await bed.advance(3_000);
    const without = gone(unpluggedAt, 'LONE0002');
    expect(without && without.at - unpluggedAt, 'unplug 1.5 s after a report').toBeLessThanOrEqual(2_000);
    expect(without!.body.devices.map((d) => d.udid)).toContain('LONE0001');
  });
});
