import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DaemonBed, scrapeMetrics } from './daemon-bed.js';
import { devicesOf, reported } from '../support/reports.js';

// The USB layer in the daemon, through the real adb server and the cloud
// double, with a simulated kernel log (a file of /dev/kmsg records, as a lab
// replaying an incident gives it: usb.kernelLog) and a sysfs tree built
// here (usb.sysfsRoot).

const bed = new DaemonBed();
const { cloud } = bed;

beforeAll(() => bed.start());
afterEach(() => bed.reset());
afterAll(() => bed.stop());

function lab(): { kernelLog: string; sysfs: string } {
  const dir = mkdtempSync(join(tmpdir(), 'usb-e2e-'));
  const sysfs = join(dir, 'sysfs');
  mkdirSync(sysfs);
  return { kernelLog: join(dir, 'kmsg.rec'), sysfs };
}

describe('the USB layer in the daemon', () => {
  it('puts the evidence on the message of a phone that failed on two ports', async () => {
    const { kernelLog, sysfs } = lab();
    let seq = 1;
    const record = (text: string): string => `3,${seq++},${seq * 1000},-;${text}`;
    const lines = ['1-1.2', '2-1.3'].flatMap((port, i) => [
      record(`usb ${port}: new high-speed USB device number ${i + 4} using xhci_hcd`),
      record(`usb ${port}: SerialNumber: USBBAD01`),
      record(`usb ${port}: device descriptor read/64, error -71`),
      record(`usb ${port}: reset high-speed USB device number ${i + 4} using xhci_hcd`),
    ]);
    writeFileSync(kernelLog, `${lines.join('\n')}\n`);
    await bed.plug('USBBAD01');
    const agent = bed.run({
      DEVICE_AGENT_USB_KERNEL_LOG: kernelLog,
      DEVICE_AGENT_USB_SYSFS_ROOT: sysfs,
      DEVICE_AGENT_SCHEDULE: '*/2 * * * * *',
      DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0',
    });
    await agent.waitForLog((l) => String(l.msg).startsWith('phone USBBAD01: failed on 2 different ports'), 30_000);
    // /metrics: each port's failures by kind, the phone verdict standing and logged once.
    const metrics = await scrapeMetrics(agent);
    for (const port of ['1-1.2', '2-1.3']) {
      expect(metrics).toContain(`device_agent_usb_port_failures_total{port="${port}",kind="enumeration_failed"} 1`);
      expect(metrics).toContain(`device_agent_usb_port_failures_total{port="${port}",kind="reset"} 1`);
    }
    expect(metrics).toContain('device_agent_usb_port_failures_total{port="other",kind="enumeration_failed"} 0');
    expect(metrics).toContain('device_agent_usb_verdicts{layer="phone"} 1');
    expect(metrics).toContain('device_agent_usb_verdicts_total{layer="phone"} 1');
    expect(metrics).toContain('device_agent_usb_verdicts_total{layer="hub"} 0');
    const put = await cloud.waitForPut(
      reported('USBBAD01', (d) => /USB: phone USBBAD01/.test(d.message ?? '')),
      30_000,
    );
    expect(devicesOf(put).find((d) => d.udid === 'USBBAD01')?.message).toContain(
      'USB: phone USBBAD01: failed on 2 different ports (1-1.2, 2-1.3) today and yesterday (UTC): the phone or its own cable, not the ports',
    );
  }, 90_000);

  it('reports a phone adb stopped listing while it is on a USB port as UNAVAILABLE with why, never UNPLUGGED, and UNPLUGGED once it leaves the port', async () => {
    const { sysfs } = lab();
    const port = join(sysfs, '1-1.3');
    mkdirSync(port);
    writeFileSync(join(port, 'serial'), 'USBOFF01\n');
    const phone = await bed.plug('USBOFF01');
    bed.run({ DEVICE_AGENT_USB_KERNEL_LOG: '', DEVICE_AGENT_USB_SYSFS_ROOT: sysfs, DEVICE_AGENT_SCHEDULE: '*/2 * * * * *' });
    await cloud.waitForPut(
      reported('USBOFF01', (d) => d.status === 'AVAILABLE'),
      30_000,
    );
    // USB debugging turned off: adb loses the phone, the kernel still has it on 1-1.3.
    const offAt = Date.now();
    await bed.adb.disconnect(phone.port);
    const off = await cloud.waitForPut(
      reported('USBOFF01', (d) => d.status === 'UNAVAILABLE'),
      30_000,
    );
    expect(devicesOf(off).find((d) => d.udid === 'USBOFF01')).toMatchObject({ state: 'no device', modelName: 'Pixel 8 Pro' });
    expect(devicesOf(off).find((d) => d.udid === 'USBOFF01')?.message).toMatch(/^on USB port 1-1\.3 \(the kernel enumerated it\) but adb does not list it/);
    // Taken off the port: gone.
    rmSync(port, { recursive: true });
    await cloud.waitForPut(
      reported('USBOFF01', (d) => d.status === 'UNPLUGGED'),
      30_000,
    );
    const before = cloud.putRequests().filter((r) => r.receivedAt > offAt && devicesOf(r).some((d) => d.udid === 'USBOFF01' && d.status === 'UNPLUGGED'));
    const firstGone = before[0]!.receivedAt;
    // From adb's loss to the port's: never UNPLUGGED.
    for (const r of cloud.putRequests().filter((r) => r.receivedAt > offAt && r.receivedAt < firstGone)) {
      const d = devicesOf(r).find((x) => x.udid === 'USBOFF01');
      if (d) expect(d.status).not.toBe('UNPLUGGED');
    }
  }, 90_000);
});
