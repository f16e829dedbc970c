import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kernelLogFacts, kernelLogItem } from '../../src/doctor/kernel-log.js';

// The doctor's kernel log line: the log opened as the doctor runs, and the
// installed unit read (unit directories built here, with the packaged
// unit's own PrivateDevices=yes line).

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

const PACKAGED = '[Service]\nDynamicUser=yes\nPrivateDevices=yes\nPrivateUsers=yes\n';

describe('kernelLogFacts and kernelLogItem', () => {
  it('a readable log, no unit installed: ok', () => {
    const path = recording();
    const facts = kernelLogFacts(path, {}, [dir()], join(dir(), 'no-dmesg-restrict'));
    expect(facts).toEqual({ path, underSystemd: false });
    expect(kernelLogItem(facts)).toEqual({ status: 'ok', finding: `USB kernel log: ${path} readable: the USB layer judges ports, hubs and controllers` });
  });

  it('/dev/kmsg missing: a container without it, or the unit; what to do for each', () => {
    const item = kernelLogItem({ path: '/dev/kmsg', error: 'ENOENT', underSystemd: false });
    expect(item.status).toBe('warn');
    expect(item.finding).toMatch(/^USB kernel log: \/dev\/kmsg does not exist here \(a container started without it, or a unit with PrivateDevices=yes\)/);
    expect(item.advice).toMatch(/podman run --device \/dev\/kmsg/);
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

  it('readable by the doctor run by hand, while the installed unit hides /dev/kmsg from the service: a warning naming the unit', () => {
    const units = unitDir(PACKAGED);
    const facts = kernelLogFacts('/dev/kmsg', {}, [units]);
    const item = kernelLogItem({ ...facts, error: undefined });
    expect(facts.hidingUnit).toBe(join(units, 'device-agent.service'));
    expect(item.status).toBe('warn');
    expect(item.finding).toBe(
      `USB kernel log: /dev/kmsg is readable by this doctor, but not by the service: its unit ${join(units, 'device-agent.service')} has PrivateDevices=yes, which hides /dev/kmsg`,
    );
    expect(item.advice).toMatch(/BindReadOnlyPaths=\/dev\/kmsg/);
  });

  it('a drop-in that binds /dev/kmsg in, or a doctor run under systemd, is as the service reads it', () => {
    expect(
      kernelLogFacts('/dev/kmsg', {}, [unitDir(PACKAGED, '[Service]\nBindReadOnlyPaths=/dev/kmsg\nDeviceAllow=/dev/kmsg r\n')]).hidingUnit,
    ).toBeUndefined();
    expect(kernelLogFacts('/dev/kmsg', {}, [unitDir('[Service]\nDynamicUser=yes\n')]).hidingUnit).toBeUndefined();
    const under = kernelLogFacts('/dev/kmsg', { INVOCATION_ID: 'abc' }, [unitDir(PACKAGED)]);
    expect(under.hidingUnit).toBeUndefined();
    expect(kernelLogItem({ ...under, error: undefined }).finding).toBe(
      'USB kernel log: /dev/kmsg readable under systemd, as the service runs: the USB layer judges ports, hubs and controllers',
    );
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
