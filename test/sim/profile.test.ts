import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  DEVICES_DIR,
  ProfileError,
  commandKey,
  listProfiles,
  loadProfile,
  makeProfile,
  parseGetprop,
  setGetprop,
  withBatteryLevel,
  withExternalPower,
  withSerial,
} from './profile.js';
import { onExternalPower, parseBattery } from '../../src/platforms/android/inventory/parsers/battery.js';

const pixelDump = readFileSync(join(DEVICES_DIR, 'pixel-8-pro', 'getprop.txt'), 'utf8');

describe('parseGetprop', () => {
  it('reads every property line of a real dump', () => {
    const props = parseGetprop(pixelDump);
    const lines = pixelDump.split('\n').filter((line) => line.startsWith('['));
    expect(props.size).toBe(lines.length);
    expect(props.get('ro.product.device')).toBe('husky');
    // An empty value stays an empty string, not undefined.
    expect(props.get('aoj.feature.ui_logging')).toBe('');
  });

  it('skips garbage and never throws', () => {
    expect(parseGetprop('garbage\n[half: [line\n[a]: [b]\n').get('a')).toBe('b');
    fc.assert(fc.property(fc.string(), (text) => void parseGetprop(text)));
  });
});

describe('setGetprop', () => {
  it('replaces an existing property in place', () => {
    const out = setGetprop('[a]: [1]\n[b]: [2]\n', 'a', 'x');
    expect(out).toBe('[a]: [x]\n[b]: [2]\n');
  });

  it('inserts a missing property in sorted position', () => {
    const out = setGetprop(pixelDump, 'ro.serialno', 'SIM0042');
    const names = [...parseGetprop(out).keys()];
    expect(parseGetprop(out).get('ro.serialno')).toBe('SIM0042');
    expect(names.length).toBe(parseGetprop(pixelDump).size + 1);
    const at = names.indexOf('ro.serialno');
    expect(names[at - 1]! < 'ro.serialno').toBe(true);
    expect(names[at + 1]! > 'ro.serialno').toBe(true);
  });
});

describe('loadProfile', () => {
  it('loads the Pixel 8 Pro and derives its banner from the getprop dump', () => {
    const profile = loadProfile('pixel-8-pro');
    const props = parseGetprop(pixelDump);
    expect(profile.banner).toEqual({
      'ro.product.name': props.get('ro.product.name'),
      'ro.product.model': props.get('ro.product.model'),
      'ro.product.device': props.get('ro.product.device'),
    });
    expect(profile.commands.get('getprop')?.output).toBe(pixelDump);
    expect(profile.source).toMatch(/github/);
  });

  it('loads every profile under test/fixtures/devices, each naming its source', () => {
    const names = listProfiles();
    expect(names).toContain('pixel-8-pro');
    for (const name of names) {
      const profile = loadProfile(name);
      expect(profile.source.length, name).toBeGreaterThan(10);
      expect(profile.commands.size, name).toBeGreaterThan(0);
    }
  });

  it('reports a missing source, a missing recording and bad JSON as ProfileError', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'profile-test-'));
    try {
      await writeFile(join(dir, 'profile.json'), '{"commands": {}}');
      expect(() => loadProfile(dir)).toThrow(ProfileError);
      await writeFile(join(dir, 'profile.json'), '{"source": "test", "commands": {"getprop": "nope.txt"}}');
      expect(() => loadProfile(dir)).toThrow(/nope.txt/);
      await writeFile(join(dir, 'profile.json'), '{not json');
      expect(() => loadProfile(dir)).toThrow(ProfileError);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('accepts inline text, exit codes and fallbacks', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'profile-test-'));
    try {
      await writeFile(join(dir, 'df.txt'), 'Filesystem 1K-blocks\n');
      await writeFile(
        join(dir, 'profile.json'),
        JSON.stringify({
          source: 'invented for this test',
          commands: { 'df  -k': 'df.txt', uptime: { text: 'up 1 day\n', exitCode: 0 }, false: { text: '' } },
          exitCodes: { false: 1 },
          fallbacks: { ls: 'ls: {args}: No such file or directory', dumpsys: { output: 'x', exitCode: 3 } },
        }),
      );
      const profile = loadProfile(dir);
      expect(profile.commands.get('df -k')?.output).toBe('Filesystem 1K-blocks\n');
      expect(profile.commands.get('false')?.exitCode).toBe(1);
      expect(profile.fallbacks.get('dumpsys')).toEqual({ template: 'x', exitCode: 3 });
      expect(profile.banner).toEqual({});
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('withSerial', () => {
  it('changes the serial everywhere getprop can show it, leaving the original alone', () => {
    const original = loadProfile('pixel-8-pro');
    const copy = withSerial(original, 'SIM0007');
    const props = parseGetprop(copy.commands.get('getprop')!.output);
    expect(props.get('ro.serialno')).toBe('SIM0007');
    expect(props.get('ro.boot.serialno')).toBe('SIM0007');
    expect(copy.commands.get('getprop ro.serialno')?.output).toBe('SIM0007\n');
    expect(parseGetprop(original.commands.get('getprop')!.output).get('ro.serialno')).toBeUndefined();
  });
});

describe('makeProfile', () => {
  it('builds a profile in code with normalised command keys', () => {
    const profile = makeProfile('tiny', { 'cat   /proc/version': 'Linux version 4.14\n' });
    expect(commandKey(' cat\t/proc/version ')).toBe('cat /proc/version');
    expect(profile.commands.get('cat /proc/version')?.output).toBe('Linux version 4.14\n');
  });
});

describe('withBatteryLevel', () => {
  it('rewrites the level of the recorded dumpsys battery, out of 100, and nothing else', () => {
    const samsung = loadProfile('samsung-galaxy-s25-plus');
    const drained = withBatteryLevel(samsung, 37).commands.get('dumpsys battery')!.output;
    const recorded = samsung.commands.get('dumpsys battery')!.output;
    expect(drained).toMatch(/^ {2}level: 37$/m);
    expect(drained.replace('level: 37', 'level: 100')).toBe(recorded);
    expect(samsung.commands.get('dumpsys battery')!.output).toMatch(/^ {2}level: 100$/m);
  });

  it('refuses a profile without a battery recording', () => {
    expect(() => withBatteryLevel(loadProfile('pixel-8-pro'), 50)).toThrow(ProfileError);
  });
});

describe('withExternalPower', () => {
  it('says the phone is off every charger and discharging, or on USB and charging, as the battery parser reads it', () => {
    const samsung = loadProfile('samsung-galaxy-s25-plus');
    const read = (p: typeof samsung) => parseBattery(p.commands.get('dumpsys battery')!.output);
    const off = read(withExternalPower(samsung, false));
    expect(off).toMatchObject({ acPowered: false, usbPowered: false, wirelessPowered: false, status: 'DISCHARGING', percentage: '100' });
    expect(onExternalPower(off)).toBe(false);
    const on = read(withExternalPower(withExternalPower(samsung, false), true));
    expect(on).toMatchObject({ usbPowered: true, status: 'CHARGING' });
    expect(onExternalPower(on)).toBe(true);
  });
});
