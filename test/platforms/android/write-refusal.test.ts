import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { writeRefusal } from '../../../src/platforms/android/control.js';
import { parseWriteRefusal } from '../../../src/platforms/android/inventory/parsers/settings.js';

// What `settings put` prints where the phone's maker keeps adb's shell from
// writing settings (inventory/parsers/fixtures/SOURCES.md, settings-put/), and
// the toggle a person turns on for each maker.
const recorded = (name: string): string => readFileSync(new URL(`inventory/parsers/fixtures/settings-put/${name}`, import.meta.url), 'utf8');
const DENIAL = 'Permission denial: writing to settings requires:android.permission.WRITE_SECURE_SETTINGS';

describe("a phone's refusal of a settings write", () => {
  it('reads the SecurityException of each recording, and nothing of a write that printed nothing or another error', () => {
    for (const name of ['oneplus8pro-android12-scrcpy2612.txt', 'scrcpy4778-comment.txt', 'poco-m3-termuxdisableprocces1.txt'])
      expect([name, parseWriteRefusal(recorded(name))]).toEqual([name, DENIAL]);
    expect(parseWriteRefusal('')).toBeUndefined();
    expect(parseWriteRefusal("cmd: Can't find service: settings\n")).toBeUndefined();
    // `cmd`'s own form, and Android 7's SettingsCmd after its own line, CRLF as a pty prints it.
    expect(parseWriteRefusal(`Security exception: ${DENIAL}\n`)).toBe(DENIAL);
    expect(parseWriteRefusal(`Error while accessing settings provider\r\njava.lang.SecurityException: ${DENIAL}\r\n`)).toBe(DENIAL);
  });

  it("names the maker's toggle: OnePlus, OPPO and realme's, Xiaomi, Redmi and POCO's, both for another maker", () => {
    const oneplus = recorded('oneplus8pro-android12-scrcpy2612.txt');
    for (const maker of ['OnePlus', 'OPPO', 'realme'])
      expect(writeRefusal(oneplus, maker)?.enable).toBe('Developer options > Disable permission monitoring on, then USB debugging off and on again');
    for (const maker of ['Xiaomi', 'Redmi', 'POCO'])
      expect(writeRefusal(recorded('poco-m3-termuxdisableprocces1.txt'), maker)?.enable).toMatch(/^Developer options > USB debugging \(Security settings\) on/);
    expect(writeRefusal(oneplus, 'samsung')?.enable).toMatch(
      /Disable permission monitoring; Xiaomi: Developer options > USB debugging \(Security settings\)\)$/,
    );
    expect(writeRefusal(oneplus, undefined)).toMatchObject({ said: DENIAL });
    expect(writeRefusal('', 'OnePlus')).toBeUndefined();
  });
});
