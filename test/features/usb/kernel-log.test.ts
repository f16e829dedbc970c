import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { kernelLogFacts, kernelLogItem } from '../../../src/features/usb/kernel-log.js';

// The doctor's kernel log line: the log opened as the doctor runs, and the
// installed unit read with its drop-ins (unit directories built here: the
// shipped systemd/device-agent.service itself, drop-ins taking its access
// away one setting at a time, and the unit as shipped before, which hid
// /dev/kmsg).

function dir(): string {
  return mkdtempSync(join(tmpdir(), 'da-kmsg-'));
}

function recording(): string {
  const file = join(dir(), 'kmsg.rec');
  writeFileSync(file, '3,1,1000,-;usb 1-1.2: device descriptor read/64, error -71\n');
  return file;
}

function unitDir(unit: string, dropIn?: string): string {
  const d = dir();
  writeFileSync(join(d, 'device-agent.service'), unit);
  if (dropIn !== undefined) {
    mkdirSync(join(d, 'device-agent.service.d'));
    writeFileSync(join(d, 'device-agent.service.d', 'kmsg.conf'), dropIn);
  }
  return d;
}

/** The unit as shipped before this change: PrivateDevices=yes hid /dev/kmsg. */
const PACKAGED = '[Service]\nDynamicUser=yes\nPrivateDevices=yes\nPrivateUsers=yes\n';
const SHIPPED = readFileSync(resolve(dirname(fileURLToPath(import.meta.url)), '../../../systemd/device-agent.service'), 'utf8');

function restrict(value: '0' | '1'): string {
  const file = join(dir(), 'dmesg_restrict');
  writeFileSync(file, `${value}\n`);
  return file;
}

describe('kernelLogFacts and kernelLogItem', () => {
  it('a readable log, no unit installed: ok', () => {
    const path = recording();
    const facts = kernelLogFacts(path, {}, [dir()], join(dir(), 'no-dmesg-restrict'));
    expect(facts).toEqual({ path, underSystemd: false, is: { kind: 'recording' } });
    expect(kernelLogItem(facts)).toEqual({
      status: 'ok',
      finding: `USB kernel log: ${path}, a recording of kernel lines, readable: the USB layer judges ports, hubs and controllers`,
    });
  });

  it('a directory, another device than /dev/kmsg, or a file that is no kernel log: said what it is, never "readable" (issue 60)', () => {
    const none = join(dir(), 'no-dmesg-restrict');
    const directory = dir();
    expect(kernelLogItem(kernelLogFacts(directory, {}, [dir()], none))).toEqual({
      status: 'warn',
      finding: `USB kernel log: ${directory} is a directory, not a kernel log: the USB layer reads nothing from it`,
      advice: expect.stringMatching(/^point usb\.kernelLog at \/dev\/kmsg, or at a recording of its records/),
    });
    expect(kernelLogItem(kernelLogFacts('/dev/zero', {}, [dir()], none)).finding).toBe(
      'USB kernel log: /dev/zero is a character device (1:5) that is not /dev/kmsg (1:11), not a kernel log: the USB layer reads nothing from it',
    );
    const passwd = join(dir(), 'passwd');
    writeFileSync(passwd, 'root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n');
    expect(kernelLogItem(kernelLogFacts(passwd, {}, [dir()], none))).toMatchObject({
      status: 'warn',
      finding: expect.stringMatching(/is a file whose start is no kernel log \(none of its first 2 lines is a kernel line/),
    });
  });

  it('/dev/kmsg missing: a container without it, or the unit; what to do for each', () => {
    const item = kernelLogItem({ path: '/dev/kmsg', error: 'ENOENT', underSystemd: false });
    expect(item.status).toBe('warn');
    expect(item.finding).toMatch(/^USB kernel log: \/dev\/kmsg does not exist here \(a container started without it, or a unit that hides it\)/);
    expect(item.advice).toMatch(/podman run --device \/dev\/kmsg:\/dev\/kmsg:r/);
    expect(item.advice).toMatch(/systemctl cat device-agent/);
    expect(item.advice).toMatch(/usb\.kernelLog to ""/);
  });

  it('a recording that is not there names the setting', () => {
    const path = join(dir(), 'gone.rec');
    const item = kernelLogItem(kernelLogFacts(path, {}, []));
    expect(item).toMatchObject({ status: 'warn', finding: `USB kernel log: usb.kernelLog ${path} does not exist` });
  });

  it.runIf(process.getuid?.() !== 0)('a log the agent may not read: CAP_SYSLOG or dmesg_restrict', () => {
    const path = recording();
    chmodSync(path, 0o000);
    const item = kernelLogItem(kernelLogFacts(path, {}, []));
    expect(item.finding).toBe(`USB kernel log: ${path} cannot be read (EACCES): the USB layer cannot say which port, hub or controller fails`);
    expect(item.advice).toMatch(/CAP_SYSLOG/);
  });

  it('EACCES as the kernel gives it with kernel.dmesg_restrict=1', () => {
    const item = kernelLogItem({ path: '/dev/kmsg', error: 'EPERM', underSystemd: false });
    expect(item.finding).toBe('USB kernel log: /dev/kmsg cannot be read (EPERM): the USB layer cannot say which port, hub or controller fails');
    expect(item.advice).toMatch(/kernel\.dmesg_restrict=0/);
  });

  it('readable by the doctor run by hand, while the installed unit hides /dev/kmsg from the service (the unit as shipped before): a warning naming the unit and why', () => {
    const units = unitDir(PACKAGED);
    const facts = kernelLogFacts('/dev/kmsg', {}, [units], restrict('1'));
    const item = kernelLogItem({ ...facts, error: undefined });
    expect(facts.hidingUnit).toBe(join(units, 'device-agent.service'));
    expect(item.status).toBe('warn');
    expect(item.finding).toBe(
      `USB kernel log: /dev/kmsg is readable by this doctor, but not by the service: its unit ${join(units, 'device-agent.service')} has PrivateDevices=yes without BindReadOnlyPaths=/dev/kmsg, which hides /dev/kmsg from the service`,
    );
    expect(item.advice).toMatch(/BindReadOnlyPaths=-\/dev\/kmsg, DeviceAllow=\/dev\/kmsg r, AmbientCapabilities=CAP_SYSLOG/);
  });

  it('the shipped unit lets the service read /dev/kmsg, where kernel.dmesg_restrict is 1 or 0: said so, no warning', () => {
    for (const value of <const>['1', '0']) {
      const units = unitDir(SHIPPED);
      const facts = kernelLogFacts('/dev/kmsg', {}, [units], restrict(value));
      expect(facts.hidingUnit, facts.hiding).toBeUndefined();
      expect(facts.openingUnit).toBe(join(units, 'device-agent.service'));
      expect(kernelLogItem({ ...facts, error: undefined })).toEqual({
        status: 'ok',
        finding: `USB kernel log: /dev/kmsg readable by this doctor, and its unit ${join(units, 'device-agent.service')} lets the service read it: the USB layer judges ports, hubs and controllers`,
      });
    }
  });

  it("a drop-in that takes one of the shipped unit's settings away is named, each (kernel.dmesg_restrict=1)", () => {
    const cases: Array<[string, string]> = [
      ['ProtectKernelLogs=yes', 'ProtectKernelLogs=yes, which denies /dev/kmsg to the service'],
      ['BindReadOnlyPaths=', 'PrivateDevices=yes without BindReadOnlyPaths=/dev/kmsg, which hides /dev/kmsg from the service'],
      ['DeviceAllow=', 'a closed device policy without DeviceAllow=/dev/kmsg r, which refuses the service the open'],
      ['PrivateUsers=yes', "PrivateUsers=yes, under which the service's CAP_SYSLOG is not the host's, and kernel.dmesg_restrict=1 asks for the host's"],
      ['AmbientCapabilities=', 'no AmbientCapabilities=CAP_SYSLOG, which kernel.dmesg_restrict=1 asks for'],
      ['CapabilityBoundingSet=\nCapabilityBoundingSet=CAP_NET_RAW', 'a CapabilityBoundingSet= without CAP_SYSLOG, which kernel.dmesg_restrict=1 asks for'],
    ];
    for (const [dropIn, why] of cases) {
      const units = unitDir(SHIPPED, `[Service]\n${dropIn}\n`);
      const facts = kernelLogFacts('/dev/kmsg', {}, [units], restrict('1'));
      expect({ dropIn, hiding: facts.hiding, unit: facts.hidingUnit }).toEqual({ dropIn, hiding: why, unit: join(units, 'device-agent.service') });
      expect(kernelLogItem({ ...facts, error: undefined }).status).toBe('warn');
    }
    // Where kernel.dmesg_restrict=0 the capability is not needed: only the device's settings count.
    expect(kernelLogFacts('/dev/kmsg', {}, [unitDir(SHIPPED, '[Service]\nPrivateUsers=yes\nAmbientCapabilities=\n')], restrict('0')).hiding).toBeUndefined();
    expect(kernelLogFacts('/dev/kmsg', {}, [unitDir(SHIPPED, '[Service]\nProtectKernelLogs=yes\n')], restrict('0')).hiding).toMatch(/^ProtectKernelLogs=yes/);
  });

  it('a drop-in that binds /dev/kmsg into the old unit, or a unit without a sandbox, lets the service read it', () => {
    expect(
      kernelLogFacts('/dev/kmsg', {}, [unitDir(PACKAGED, '[Service]\nBindReadOnlyPaths=/dev/kmsg\nDeviceAllow=/dev/kmsg r\n')], restrict('0')).hidingUnit,
    ).toBeUndefined();
    expect(kernelLogFacts('/dev/kmsg', {}, [unitDir('[Service]\nDynamicUser=yes\n')], restrict('0')).hidingUnit).toBeUndefined();
    // A root service needs no ambient capability.
    expect(
      kernelLogFacts('/dev/kmsg', {}, [unitDir('[Service]\nPrivateDevices=yes\nBindReadOnlyPaths=/dev/kmsg\nDeviceAllow=/dev/kmsg r\n')], restrict('1')).hiding,
    ).toBeUndefined();
  });

  it("under systemd: readable in the shipped unit's sandbox is as the service runs; a systemd-run that opens what the unit hides (the wrapper's doctor) is not", () => {
    const under = kernelLogFacts('/dev/kmsg', { INVOCATION_ID: 'abc' }, [unitDir(SHIPPED)], restrict('1'));
    expect(under.hidingUnit).toBeUndefined();
    expect(kernelLogItem({ ...under, error: undefined }).finding).toBe(
      'USB kernel log: /dev/kmsg readable under systemd, as the service runs: the USB layer judges ports, hubs and controllers',
    );
    const units = unitDir(SHIPPED, '[Service]\nProtectKernelLogs=yes\n');
    const wrapper = kernelLogFacts('/dev/kmsg', { INVOCATION_ID: 'abc' }, [units], restrict('1'));
    expect(kernelLogItem({ ...wrapper, error: undefined })).toMatchObject({
      status: 'warn',
      finding: `USB kernel log: /dev/kmsg is readable by this doctor, but not by the service: its unit ${join(units, 'device-agent.service')} has ProtectKernelLogs=yes, which denies /dev/kmsg to the service`,
    });
    // In the unit's own sandbox the open fails first, and says how.
    expect(kernelLogItem({ ...wrapper, error: 'ENOENT' }).finding).toMatch(/^USB kernel log: \/dev\/kmsg does not exist here/);
  });

  it('off says so, and is no warning', () => {
    expect(kernelLogItem(kernelLogFacts('', {}))).toEqual({
      status: 'ok',
      finding: 'USB kernel log: off (usb.kernelLog is empty): ports, hubs and controllers are not judged',
    });
  });

  it.runIf(process.getuid?.() === 0)(
    'run as root where kernel.dmesg_restrict=1: readable says nothing of an agent running as another user, and says so',
    () => {
      const restrict = join(dir(), 'dmesg_restrict');
      writeFileSync(restrict, '1\n');
      const facts = kernelLogFacts('/dev/kmsg', {}, [dir()], restrict);
      expect(facts.rootOverRestrict).toBe(true);
      expect(kernelLogItem({ ...facts, error: undefined }).finding).toBe(
        'USB kernel log: /dev/kmsg readable by this doctor, run as root; with kernel.dmesg_restrict=1 an agent running as another user reads it only with CAP_SYSLOG (run doctor as the agent runs to know)',
      );
      writeFileSync(restrict, '0\n');
      expect(kernelLogFacts('/dev/kmsg', {}, [dir()], restrict).rootOverRestrict).toBeUndefined();
      writeFileSync(restrict, '1\n');
      // Under systemd it opened the log as the service does: nothing to add.
      expect(kernelLogFacts('/dev/kmsg', { INVOCATION_ID: 'x' }, [dir()], restrict).rootOverRestrict).toBeUndefined();
    },
  );
});
