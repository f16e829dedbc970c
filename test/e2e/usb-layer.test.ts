import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DaemonBed, scrapeMetrics } from './daemon-bed.js';
import { devicesOf, reported, type ReportedDevice } from '../support/reports.js';

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

  it('reports a phone adb stopped listing while it is on a USB port as UNAVAILABLE and not ready (usbDebugging) with the cause and the fix, never UNPLUGGED, and UNPLUGGED once it leaves the port', async () => {
    const { sysfs } = lab();
    const port = join(sysfs, '1-1.3');
    mkdirSync(port);
    writeFileSync(join(port, 'serial'), 'USBOFF01\n');
    const phone = await bed.plug('USBOFF01');
    // The default baseline (config/default.json) has usbDebugging: readiness meets the USB layer there.
    const agent = bed.run({
      DEVICE_AGENT_USB_KERNEL_LOG: '',
      DEVICE_AGENT_USB_SYSFS_ROOT: sysfs,
      DEVICE_AGENT_SCHEDULE: '*/2 * * * * *',
      DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0',
    });
    await cloud.waitForPut(
      reported('USBOFF01', (d) => d.status === 'AVAILABLE'),
      30_000,
    );
    const failing = (metrics: string): string | undefined => /^device_agent_readiness_failing_devices\{check="usbDebugging"\} (\d+)$/m.exec(metrics)?.[1];
    expect(failing(await scrapeMetrics(agent))).toBe('0');
    // USB debugging turned off: adb loses the phone, the kernel still has it on 1-1.3.
    const offAt = Date.now();
    await bed.adb.disconnect(phone.port);
    const off = await cloud.waitForPut(
      reported('USBOFF01', (d) => d.status === 'UNAVAILABLE'),
      30_000,
    );
    const offDevice = devicesOf(off).find((d) => d.udid === 'USBOFF01') as ReportedDevice & { support?: { appiumDisabled?: boolean } };
    expect(offDevice).toMatchObject({ state: 'no device', modelName: 'Pixel 8 Pro' });
    // Not ready, with that cause and each way to fix it: never "gone".
    expect(offDevice.message).toMatch(
      /^not ready for automation: USB debugging is unreachable \(usbDebugging\): on USB port 1-1\.3 \(the kernel enumerated it\) but adb does not list it\. /,
    );
    expect(offDevice.message).toContain('USB debugging turned off (an OS update does it): Developer options > USB debugging on');
    expect(offDevice.message).toContain('charge-only USB mode: set the USB mode to File transfer');
    expect(offDevice.message).toContain("the host's adb key revoked");
    expect(offDevice.message).toMatch(/not unplugged$/);
    // Appium runs through adb: the cloud is told it cannot run on this phone.
    expect(offDevice.support?.appiumDisabled).toBe(true);
    // /metrics counts it under the check (the first scrape may precede the report that carried it).
    let metrics = await scrapeMetrics(agent);
    for (let i = 0; i < 20 && failing(metrics) !== '1'; i++) {
      await new Promise((r) => setTimeout(r, 250));
      metrics = await scrapeMetrics(agent);
    }
    expect(failing(metrics)).toBe('1');
    expect(metrics).toMatch(/^device_agent_readiness_devices\{verdict="not_ready"\} 1$/m);
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
    // Off the port, the fact is dropped: nothing counted under usbDebugging any more.
    expect(failing(await scrapeMetrics(agent))).toBe('0');
  }, 90_000);
});
