import fc from 'fast-check';
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PROBES } from '../../src/platforms/android/inventory/probes/registry.js';
import { assembleDeviceInfo } from '../../src/platforms/android/inventory/assemble.js';
import { marker, splitSections } from '../../src/platforms/android/inventory/script.js';
import { firstProp, parseGetprop } from '../../src/platforms/android/inventory/parsers/getprop.js';
import { parseIpAddresses, preferredAddress } from '../../src/platforms/android/inventory/parsers/network.js';
import { installedBrowsers, parsePackages } from '../../src/platforms/android/inventory/parsers/packages.js';
import { mobileDataState, parseTelephonyRegistry } from '../../src/platforms/android/inventory/parsers/telephony.js';

// Garbage into every parser at once: whatever a device prints, parsing never
// throws and never invents a number (NaN or Infinity). A parser added later
// is fed too, or this test names it.

const parsersDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../src/platforms/android/inventory/parsers');

type Fn = (...args: unknown[]) => unknown;

/** Exported functions that take something parsed rather than text, fed through the parser that makes it. */
const composed: Record<string, (text: string) => unknown> = {
  firstProp: (text) => firstProp(parseGetprop(text), text.split('\n').slice(0, 3)),
  preferredAddress: (text) => preferredAddress(parseIpAddresses(text)),
  installedBrowsers: (text) => installedBrowsers(parsePackages(text)),
  mobileDataState: (text) => mobileDataState(parseTelephonyRegistry(text)),
};

async function exportedFunctions(): Promise<Map<string, Fn>> {
  const all = new Map<string, Fn>();
  for (const file of readdirSync(parsersDir).filter((f) => f.endsWith('.ts'))) {
    const mod = (await import(pathToFileURL(join(parsersDir, file)).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(mod)) if (typeof value === 'function') all.set(`${file}:${name}`, value as Fn);
  }
  return all;
}

/** Every number anywhere in the value is finite. */
function finiteNumbers(value: unknown, seen = new Set<unknown>()): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  if (value === null || typeof value !== 'object' || seen.has(value)) return true;
  seen.add(value);
  const children = value instanceof Map ? [...value.values()] : value instanceof Set ? [...value] : Object.values(value);
  return children.every((child) => finiteNumbers(child, seen));
}

// Text that looks like device output: lines of keys, numbers, units and brackets.
const deviceish = fc
  .array(
    fc.oneof(
      fc.string(),
      fc.constantFrom(
        '[ro.serialno]: [',
        ']',
        ': ',
        '=',
        ' kB',
        'K',
        'M',
        'G',
        '%',
        '/data',
        'level: ',
        'scale: ',
        'mDataConnectionState=',
        'inet ',
        '/',
        '.',
        '-1',
        '0x',
        'NaN',
        'Infinity',
        '1e999',
      ),
      fc.integer().map(String),
      fc.double().map(String),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''))
  .chain((line) => fc.array(fc.constant(line), { minLength: 1, maxLength: 3 }))
  .map((lines) => lines.join('\n'));
const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), deviceish);

describe('faults: garbage into every parser', () => {
  it('every exported parser takes any text without throwing or producing NaN', async () => {
    const fns = await exportedFunctions();
    expect(fns.size).toBeGreaterThan(20);
    for (const [key, fn] of fns) {
      const name = key.split(':')[1]!;
      const feed = composed[name] ?? ((t: string) => fn(t));
      fc.assert(
        fc.property(text, (t) => {
          const out = feed(t);
          if (!finiteNumbers(out)) throw new Error(`${key} gave a non-finite number for ${JSON.stringify(t)}: ${JSON.stringify(out)}`);
        }),
        { numRuns: 300 },
      );
    }
  });

  it('any script output goes through splitSections and assembleDeviceInfo without throwing; the device keeps an identity', () => {
    const piece = fc.oneof(
      text,
      fc.constantFrom(...PROBES.map((p) => p.section), 'end').map((name) => marker(name)),
      fc.constantFrom('\r\n', '\n', '\0'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), fc.constantFrom('device', 'recovery', 'sideload'), (parts, state) => {
        const { sections } = splitSections(parts.join('\n'));
        const info = assembleDeviceInfo({
          adbSerial: 'ABC123',
          adbState: state,
          sections,
          config: {
            addedToCloud: true,
            support: {
              appiumDisabled: false,
              networkTrafficCapturingDisabled: false,
              unlockPasscodeDisabled: false,
              setTimeZoneDisabled: false,
              networkPayloadCaptureDisabled: false,
            },
          },
        });
        expect(typeof info.udid).toBe('string');
        expect(info.udid.length).toBeGreaterThan(0);
        expect(finiteNumbers(info)).toBe(true);
        // The wire body is JSON: it must survive a round trip unchanged.
        expect(JSON.parse(JSON.stringify(info))).toEqual(info);
      }),
      { numRuns: 500 },
    );
  });
});
