import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autosuspendItems, readPhonePorts } from '../../../src/features/usb/autosuspend.js';

// The ports carrying phones, from a sysfs tree built here as a copy of
// /sys/bus/usb/devices holds it: a device directory per port with its
// serial and power/control, an interface directory per interface with its
// class, subclass and protocol (an adb interface is ff/42/01, Apple's
// usbmux ff/fe/02, a hub's 09/00/00).

interface Dev {
  serial?: string;
  control?: string;
  iface?: string;
}

function tree(devices: Record<string, Dev>): string {
  const root = mkdtempSync(join(tmpdir(), 'da-sysfs-'));
  for (const [port, d] of Object.entries(devices)) {
    mkdirSync(join(root, port, 'power'), { recursive: true });
    if (d.serial !== undefined) writeFileSync(join(root, port, 'serial'), `${d.serial}\n`);
    if (d.control !== undefined) writeFileSync(join(root, port, 'power', 'control'), `${d.control}\n`);
    if (d.iface !== undefined) {
      const [c, s, p] = d.iface.split('/');
      const iface = join(root, `${port}:1.0`);
      mkdirSync(iface);
      writeFileSync(join(iface, 'bInterfaceClass'), `${c}\n`);
      writeFileSync(join(iface, 'bInterfaceSubClass'), `${s}\n`);
      writeFileSync(join(iface, 'bInterfaceProtocol'), `${p}\n`);
    }
  }
  return root;
}

describe('readPhonePorts', () => {
  it('an adb interface, an iPhone, a serial or a path adb names is a phone; a hub and a keyboard are not', () => {
    const root = tree({
      '1-1': { control: 'auto', iface: '09/00/00' },
      '1-1.1': { control: 'auto', serial: 'R58A', iface: 'ff/42/01' },
      '1-1.2': { control: 'on', serial: '00008110001A2D3C0E91801E', iface: 'ff/fe/02' },
      '1-1.3': { control: 'auto', serial: 'R58C', iface: '08/06/50' },
      '1-1.4': { control: 'auto', serial: 'KBD', iface: '03/01/01' },
      '2-1': { control: 'on', iface: '06/01/01' },
    });
    expect(readPhonePorts(root, new Set(['R58C']), new Set(['2-1']))).toEqual([
      { port: '1-1.1', control: 'auto' },
      { port: '1-1.2', control: 'on' },
      { port: '1-1.3', control: 'auto' },
      { port: '2-1', control: 'on' },
    ]);
  });

  it('no sysfs: none', () => {
    expect(readPhonePorts('/nonexistent/sys/bus/usb/devices', new Set(), new Set())).toEqual([]);
  });
});

describe('autosuspendItems', () => {
  it('names the ports with autosuspend on, and how to turn it off', () => {
    const [item] = autosuspendItems([
      { port: '1-1.1', control: 'auto' },
      { port: '1-1.2', control: 'on' },
      { port: '1-1.3', control: 'auto' },
    ]);
    expect(item).toMatchObject({ status: 'warn', finding: 'USB autosuspend: on (power/control = auto) on 2 of the 3 ports carrying phones: 1-1.1, 1-1.3' });
    expect(item!.advice).toMatch(/usbcore\.autosuspend=-1/);
    expect(item!.advice).toMatch(/echo on \| sudo tee \/sys\/bus\/usb\/devices\/1-1\.1\/power\/control/);
  });

  it('all off is one ok line; no phones on USB, or none read, is no line', () => {
    expect(autosuspendItems([{ port: '1-1.2', control: 'on' }])).toEqual([
      { status: 'ok', finding: 'USB autosuspend: off (power/control = on) on the 1 port carrying phones' },
    ]);
    expect(autosuspendItems([])).toEqual([]);
    expect(autosuspendItems([{ port: '1-1.2' }])).toEqual([]);
  });
});
