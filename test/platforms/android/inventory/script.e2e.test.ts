import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROBES } from '../../../../src/platforms/android/inventory/probes/registry.js';
import { buildInventoryScript, END_MARKER, marker, sectionStart, splitSections } from '../../../../src/platforms/android/inventory/script.js';
import { TIERS } from '../../../../src/platforms/android/inventory/probes/types.js';

describe('buildInventoryScript', () => {
  it('fits in one adb shell request of old devices (4 KiB payload)', () => {
    const script = buildInventoryScript({ tiers: TIERS, reachabilityHost: 'cloud.example.com' });
    expect(Buffer.byteLength(script)).toBeLessThan(4000);
  });

  it('never runs su', () => {
    const script = buildInventoryScript({ tiers: TIERS, reachabilityHost: 'h' });
    expect(script).not.toMatch(/(^|[;&|]\s*)su\b/m);
  });

  it('adds the connection tier only on request', () => {
    expect(buildInventoryScript({ tiers: ['slow', 'volatile'] })).not.toContain(sectionStart('imei'));
    expect(buildInventoryScript({ tiers: TIERS })).toContain(sectionStart('imei'));
  });

  it('reads the uptime last, just before the output reaches the host', () => {
    expect(buildInventoryScript({ tiers: TIERS, reachabilityHost: 'h' }).trim().split('\n').slice(-2)[0]).toContain(
      `${sectionStart('uptime')} cat /proc/uptime`,
    );
  });

  it('pings only a safe host', () => {
    expect(buildInventoryScript({ tiers: ['slow', 'volatile'], reachabilityHost: '10.0.0.1' })).toContain('ping -c 1 -W 2 -w 3 10.0.0.1');
    const evil = buildInventoryScript({ tiers: ['slow', 'volatile'], reachabilityHost: 'x; reboot' });
    expect(evil).not.toContain('reboot');
    expect(evil).not.toContain(sectionStart('ping'));
  });

  it('runs under a POSIX sh with stub commands and splits back into every section', () => {
    // Stubs echo their own name, so each section must hold its own command.
    const dir = mkdtempSync(join(tmpdir(), 'inv-script-'));
    for (const cmd of ['getprop', 'cat', 'dumpsys', 'df', 'wm', 'id', 'ls', 'settings', 'ip', 'pm', 'service', 'ping']) {
      const file = join(dir, cmd);
      writeFileSync(file, `#!/bin/sh\necho "${cmd} $*"\n`);
      chmodSync(file, 0o755);
    }
    const script = buildInventoryScript({ tiers: TIERS, reachabilityHost: 'example.org' });
    const out = execFileSync('/bin/sh', ['-c', script], { env: { PATH: dir }, encoding: 'utf8' });
    const { sections, ended } = splitSections(out);
    expect(ended).toBe(true);
    expect(sections.get('props')).toBe('getprop ');
    // Filtered on the phone: the stub's line is no battery key's.
    expect(sections.get('battery')).toBe('');
    expect(sections.get('df')).toBe('df /data');
    expect(sections.get('device_name')).toBe('settings get global device_name');
    expect(sections.get('imei')).toBe('service call iphonesubinfo 1');
    expect(sections.get('ping')).toBe('ping -c 1 -W 2 -w 3 example.org');
    expect(sections.size).toBe(PROBES.length);
  });
});

describe('splitSections', () => {
  it('drops a section cut short by a vanished device, and says the script did not end', () => {
    const out = `${marker('props')}\n[a]: [b]\n${marker('battery')}\n  level: 5`;
    const { sections, ended } = splitSections(out);
    expect(sections.get('props')).toBe('[a]: [b]');
    expect(sections.has('battery')).toBe(false);
    expect(ended).toBe(false);
  });

  it('a run is whole only when the end marker printed', () => {
    expect(splitSections(`${marker('a')}\nx\n${marker('b')}\ny\n`).ended).toBe(false);
    expect(splitSections(`${marker('a')}\nx\n${marker('b')}\ny\n${marker('end')}\n`).ended).toBe(true);
    // The end marker of another session's token does not count.
    expect(splitSections(`${marker('a')}\nx\n${marker('end', 'other')}\n`).ended).toBe(false);
    expect(END_MARKER).toBe(marker('end'));
  });

  it('strips pty \\r and keeps empty sections', () => {
    const out = `${marker('a')}\r\nx\r\n${marker('b')}\r\n${marker('end')}\r\n`;
    expect([...splitSections(out).sections]).toEqual([
      ['a', 'x'],
      ['b', ''],
    ]);
  });

  it('ignores noise before the first delimiter', () => {
    expect(splitSections(`WARNING: linker\n${marker('a')}\n1\n${marker('end')}\n`).sections.get('a')).toBe('1');
  });

  it('never throws', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.constant(marker('x')), fc.constant(marker('end')))), (parts) => {
        splitSections(parts.join('\n'));
      }),
    );
  });
});

describe('delimiter spoofing', () => {
  it('a device name that reads like a delimiter stays data', () => {
    const out = [marker('device_name'), '<<<DA:battery>>>', `<<<DA:000000000000:battery>>>`, marker('battery'), '  level: 5', marker('end')].join('\n');
    const { sections } = splitSections(out);
    expect(sections.get('device_name')).toBe('<<<DA:battery>>>\n<<<DA:000000000000:battery>>>');
    expect(sections.get('battery')).toBe('  level: 5');
  });

  it('output of a run with another token is not read', () => {
    expect(splitSections(`${marker('a', 'other')}\nx\n${marker('end', 'other')}\n`).sections.size).toBe(0);
  });

  it('keeps a section whose command printed no final newline (the next delimiter lands on its last line)', () => {
    const out = `${marker('props')}\n[a]: [1]\n[b]: [2]${marker('imei')}\nResult: Parcel(\n${marker('end')}\n`;
    const { sections } = splitSections(out);
    expect(sections.get('props')).toBe('[a]: [1]\n[b]: [2]');
    expect(sections.get('imei')).toBe('Result: Parcel(');
  });
});
