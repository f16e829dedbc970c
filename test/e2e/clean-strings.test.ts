import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DaemonBed } from './daemon-bed.js';
import { devicesOf } from '../support/reports.js';

// Issue 23 item 6: a phone whose properties hold NUL and control characters.
// The cloud double stores text as PostgreSQL does, so before the fix the
// whole host's report failed with 500 for the one odd phone.

const bed = new DaemonBed('pixel-8-pro');
const { cloud } = bed;

beforeAll(() => bed.start());
afterEach(() => bed.reset());
afterAll(() => bed.stop());

const ODD_SERIAL = 'ODD\u0001SER';

describe('a phone whose properties hold NUL and control characters', () => {
  it('is reported with each odd character as U+FFFD, beside the others, under one udid across reports', async () => {
    await bed.plug('PLAIN001');
    await bed.plug(ODD_SERIAL, {
      props: {
        'ro.product.marketname': 'Lab\u0000phone',
        'ro.product.brand': 'goo\u001b[31mgle',
        'ro.build.version.release': '16\u0007\u007f',
      },
    });
    const a = bed.run();
    const first = await cloud.waitForPut((r) => devicesOf(r).length === 2, 30_000);
    expect(first.answer?.status).toBe(200);
    expect(first.rawBody).not.toMatch(/\\u00[01][0-9a-f]|\\u007f|\\[bfr]/i);
    const odd = (first.body as { devices: Array<Record<string, unknown>> }).devices.find((d) => d.udid !== 'PLAIN001');
    expect(odd).toMatchObject({
      udid: 'ODD\ufffdSER',
      serialNumber: 'ODD\ufffdSER',
      deviceName: 'Lab\ufffdphone',
      brandName: 'goo\ufffd[31mgle',
      platformVersion: '16\ufffd\ufffd',
      status: 'AVAILABLE',
    });
    expect(
      cloud
        .devices()
        .map((d) => d.info.udid)
        .sort(),
    ).toEqual(['ODD\ufffdSER', 'PLAIN001']);

    // The next report knows it by the same udid: no UNPLUGGED twin under the raw one.
    const t0 = Date.now();
    a.child.kill('SIGHUP');
    const second = await cloud.waitForPut((r) => r.receivedAt >= t0, 15_000);
    expect(
      devicesOf(second)
        .map((d) => `${d.udid} ${d.status}`)
        .sort(),
    ).toEqual(['ODD\ufffdSER AVAILABLE', 'PLAIN001 AVAILABLE']);
    expect(a.child.exitCode).toBeNull();
  }, 60_000);
});
