import { describe, expect, it } from 'vitest';
import type { DeviceInfo } from '../../../../src/cloud/types.js';
import { identityFromProps } from '../../../../src/platforms/android/inventory/identity.js';
import { parseGetprop, type Props } from '../../../../src/platforms/android/inventory/parsers/getprop.js';
import { props as propsProbe } from '../../../../src/platforms/android/inventory/probes/device.js';
import { DECLARED_PROPS, PROBES } from '../../../../src/platforms/android/inventory/probes/registry.js';
import type { FillContext, Probe } from '../../../../src/platforms/android/inventory/probes/types.js';
import { listProfiles, loadProfile } from '../../../sim/profile.js';
import { NOTHING_DISABLED, recordedCommand } from './support.js';

// Each probe declares the properties its fill reads (Probe.props); the
// assembler hands it those only, and the prober keeps no others of a dump. A
// property read but not declared would read as unset, on every inventory: this
// test runs every fill on every recorded device, with its reading and
// without, with the properties that steer its branches, and fails naming any
// property read beyond the declaration.

/** The properties, and the names read through the returned view. */
function spy(all: Props): { props: Props; read: Set<string> } {
  const read = new Set<string>();
  const props = new Proxy(all, {
    get(target, key, receiver) {
      if (typeof key === 'string') read.add(key);
      return Reflect.get(target, key, receiver) as unknown;
    },
    has(target, key) {
      if (typeof key === 'string') read.add(key);
      return Reflect.has(target, key);
    },
  });
  return { props, read };
}

/** Every recorded device's outputs by section, and its properties. */
const devices = listProfiles().map((name) => {
  const profile = loadProfile(name);
  const sections = new Map<string, string>();
  for (const probe of PROBES) {
    const line = recordedCommand(probe);
    const output = line === undefined ? undefined : profile.commands.get(line)?.output;
    if (output !== undefined) sections.set(probe.section, output);
  }
  return { name, sections, props: parseGetprop(profile.commands.get('getprop')?.output ?? '') };
});

// Values that steer the fills' branches: a fixed battery, a board without
// radio, no SIM slot, vendor IMEIs.
const variants: Record<string, string>[] = [
  {},
  { 'ro.boot.fake_battery': '1' },
  { 'gsm.sim.state': '' },
  { 'gsm.sim.state': '', 'ro.radio.noril': 'yes' },
  { 'gsm.sim.state': '', 'ro.carrier': 'wifi-only' },
  { 'ro.ril.oem.imei1': '861234567890123', 'ro.ril.oem.meid': 'A0000012345678' },
];

function readsOf(probe: Probe, sections: Map<string, string>, all: Props, withReading: boolean): Set<string> {
  const { props, read } = spy(all);
  const readOther = <R>(other: Probe<R>): R | undefined => {
    const text = sections.get(other.section);
    return text === undefined ? undefined : other.parse(text);
  };
  const ctx: FillContext = {
    read: readOther,
    props,
    identity: identityFromProps(all, 'SERIAL'),
    config: { addedToCloud: true, support: NOTHING_DISABLED, reachabilityHost: 'cloud.example.com' },
    observedAtMs: 1_700_000_000_000,
  };
  const info = { udid: 'SERIAL', serialNumber: 'SERIAL' } as DeviceInfo;
  probe.fill!(info, withReading ? readOther(probe) : undefined, ctx);
  return read;
}

describe('declared properties', () => {
  it('every property a fill reads is one its probe declares', () => {
    let runs = 0;
    for (const probe of PROBES.filter((p) => p.fill !== undefined)) {
      const declared = new Set(probe.props ?? []);
      for (const device of devices) {
        for (const variant of variants) {
          for (const withReading of [true, false]) {
            const read = readsOf(probe, device.sections, { ...device.props, ...variant }, withReading);
            const undeclared = [...read].filter((name) => !declared.has(name));
            expect(undeclared, `${probe.section} on ${device.name} ${JSON.stringify(variant)} reads undeclared properties`).toEqual([]);
            runs++;
          }
        }
      }
    }
    expect(runs).toBeGreaterThan(100);
  });

  it('every property the identity reads is one the props probe declares', () => {
    const declared = new Set(propsProbe.props ?? []);
    for (const device of devices) {
      for (const variant of variants) {
        const { props, read } = spy({ ...device.props, ...variant });
        identityFromProps(props, 'SERIAL');
        expect(
          [...read].filter((name) => !declared.has(name)),
          device.name,
        ).toEqual([]);
      }
    }
  });

  it('the fills that read properties are covered: battery reads ro.boot.fake_battery, telephony ro.radio.noril', () => {
    // Else the test above could pass by never reaching a branch.
    const pixel = devices.find((d) => d.sections.has('battery') && d.sections.has('telephony'))!;
    const battery = PROBES.find((p) => p.section === 'battery')!;
    expect(readsOf(battery, pixel.sections, pixel.props, true)).toContain('ro.boot.fake_battery');
    const telephony = PROBES.find((p) => p.section === 'telephony')!;
    expect(readsOf(telephony, pixel.sections, { 'gsm.sim.state': '' }, true)).toContain('ro.radio.noril');
  });

  it('the prober keeps the union of the declarations, each once', () => {
    const union = new Set(PROBES.flatMap((p) => p.props ?? []));
    expect(new Set(DECLARED_PROPS)).toEqual(union);
    expect(DECLARED_PROPS.length).toBe(union.size);
  });
});
