import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attribute, type Layer } from '../../../src/features/usb/attribution.js';
import { classifyUsbLine } from '../../../src/features/usb/classify.js';
import { addEvent, emptyRecord } from '../../../src/features/usb/port-record.js';

// Random kernel logs of a lab (2 controllers, 2 hubs each, 4 ports per hub,
// a healthy phone enumerated on every port, healthy re-plugs as noise)
// where one layer is made to fail: a port with several phones, a phone on
// several ports, every port of a hub at once, a controller, a hub's power.
// The lines go through the real classifier and record on an injected wall
// clock; the verdict must name that layer and that one only.

const CONTROLLERS: Record<number, string> = { 1: '0000:00:14.0', 2: '0000:03:00.0' };
const HUBS = ['1-1', '1-2', '2-1', '2-2'];
const PORTS = HUBS.flatMap((h) => [1, 2, 3, 4].map((p) => `${h}.${p}`));
const baseline = (port: string): string => `BASE${port.replace(/\D/g, '')}`;
const START = Date.UTC(2026, 10, 24, 8, 0, 0);

type Line = { text: string; advanceMs: number };
const enumerate = (port: string, serial: string, n: number): string[] => [
  `usb ${port}: new high-speed USB device number ${n} using xhci_hcd`,
  `usb ${port}: SerialNumber: ${serial}`,
];
const failureLine = fc.constantFrom(
  (p: string) => `usb ${p}: device descriptor read/64, error -71`,
  (p: string) => `usb ${p}: device not accepting address 12, error -71`,
  (p: string) => `usb ${p}: reset high-speed USB device number 12 using xhci_hcd`,
  (p: string) => `usb ${p}: not running at top speed; connect to a high speed hub`,
  (p: string) => `usb ${p.slice(0, p.lastIndexOf('.'))}-port${p.slice(p.lastIndexOf('.') + 1)}: unable to enumerate USB device`,
);
const failures = fc.array(failureLine, { minLength: 1, maxLength: 3 });

interface Scenario {
  layer: Layer;
  subject: string;
  /** Ports the fault touches: the noise keeps off them. */
  ports: string[];
  lines: string[];
  /** Whether its lines come at once (a hub's ports together). */
  burst: boolean;
}

const badPort = fc
  .record({
    port: fc.constantFrom(...PORTS),
    phones: fc.uniqueArray(fc.integer({ min: 0, max: 9 }), { minLength: 2, maxLength: 4 }),
    fails: fc.array(failures, { minLength: 4, maxLength: 4 }),
  })
  .map(({ port, phones, fails }): Scenario => ({
    layer: 'port',
    subject: port,
    ports: [port],
    burst: false,
    lines: phones.flatMap((phone, i) => [
      ...enumerate(port, `PHONE${phone}`, 20 + i),
      ...fails[i]!.map((f) => f(port)),
      `usb ${port}: USB disconnect, device number ${20 + i}`,
    ]),
  }));

const badPhone = fc
  .record({ ports: fc.uniqueArray(fc.constantFrom(...PORTS), { minLength: 2, maxLength: 3 }), fails: fc.array(failures, { minLength: 3, maxLength: 3 }) })
  .map(({ ports, fails }): Scenario => ({
    layer: 'phone',
    subject: 'BADPHONE',
    ports,
    burst: false,
    lines: ports.flatMap((port, i) => [
      ...enumerate(port, 'BADPHONE', 30 + i),
      ...fails[i]!.map((f) => f(port)),
      `usb ${port}: USB disconnect, device number ${30 + i}`,
      // The port's own phone back, working.
      ...enumerate(port, baseline(port), 40 + i),
    ]),
  }));

const badHub = fc.record({ hub: fc.constantFrom(...HUBS), fails: fc.array(failures, { minLength: 4, maxLength: 4 }) }).map(({ hub, fails }): Scenario => {
  const ports = [1, 2, 3, 4].map((p) => `${hub}.${p}`);
  return { layer: 'hub', subject: hub, ports, burst: true, lines: ports.flatMap((port, i) => fails[i]!.map((f) => f(port))) };
});

const badController = fc
  .record({ bus: fc.constantFrom(1, 2), how: fc.constantFrom('died', 'limit', 'every port'), fails: fc.array(failures, { minLength: 8, maxLength: 8 }) })
  .map(({ bus, how, fails }): Scenario => {
    const ports = PORTS.filter((p) => p.startsWith(`${bus}-`));
    const controller = CONTROLLERS[bus]!;
    const lines =
      how === 'died'
        ? [
            `xhci_hcd ${controller}: xHCI host controller not responding, assume dead`,
            `xhci_hcd ${controller}: HC died; cleaning up`,
            ...ports.map((p, i) => `usb ${p}: USB disconnect, device number ${50 + i}`),
          ]
        : how === 'limit'
          ? [`xhci_hcd ${controller}: Max number of devices this xHCI host supports is 32.`, `usb ${ports[0]!}: Not enough bandwidth for new device state.`]
          : ports.flatMap((p, i) => fails[i]!.map((f) => f(p)));
    return { layer: 'controller', subject: controller, ports, burst: true, lines };
  });

const overCurrent = fc.record({ port: fc.constantFrom(...PORTS), n: fc.integer({ min: 1, max: 3 }) }).map(({ port, n }): Scenario => {
  const hub = port.slice(0, port.lastIndexOf('.'));
  const number = port.slice(port.lastIndexOf('.') + 1);
  return {
    layer: 'hub-power',
    subject: hub,
    ports: [port],
    burst: false,
    lines: Array.from({ length: n }, (_, i) =>
      i % 2 ? `hub ${hub}:1.0: over-current change on port ${number}` : `usb ${hub}-port${number}: over-current condition`,
    ),
  };
});

/** Healthy re-plugs of ports' own phones: a disconnect and the same phone back. */
const noise = fc.array(fc.record({ port: fc.constantFrom(...PORTS), n: fc.integer({ min: 60, max: 120 }) }), { maxLength: 12 });

const world = fc.record({
  scenario: fc.oneof(badPort, badPhone, badHub, badController, overCurrent),
  noise,
  order: fc.array(fc.boolean(), { minLength: 64, maxLength: 64 }),
  gaps: fc.array(fc.integer({ min: 0, max: 20 * 60_000 }), { minLength: 64, maxLength: 64 }),
  burstGaps: fc.array(fc.integer({ min: 0, max: 30_000 }), { minLength: 64, maxLength: 64 }),
});

describe('attribute over random kernel logs', () => {
  it('names the one layer made to fail, and only it', () => {
    fc.assert(
      fc.property(world, ({ scenario, noise, order, gaps, burstGaps }) => {
        const lines: Line[] = [];
        for (const port of PORTS) for (const text of enumerate(port, baseline(port), 1)) lines.push({ text, advanceMs: 1_000 });
        const fault = scenario.lines.map((text, i) => ({ text, advanceMs: scenario.burst ? burstGaps[i % 64]! : gaps[i % 64]! }));
        const quiet = noise
          .filter((n) => !scenario.ports.includes(n.port))
          .flatMap((n, i) =>
            [`usb ${n.port}: USB disconnect, device number ${n.n}`, ...enumerate(n.port, baseline(n.port), n.n + 1)].map((text) => ({
              text,
              advanceMs: gaps[(i * 7) % 64]!,
            })),
          );
        // Noise interleaved with the fault, except inside a burst.
        let f = 0;
        let q = 0;
        for (let i = 0; f < fault.length || q < quiet.length; i++) {
          const takeQuiet = q < quiet.length && (f >= fault.length || (!scenario.burst && order[i % 64]!));
          lines.push(takeQuiet ? quiet[q++]! : fault[f++]!);
        }
        const record = emptyRecord();
        let now = START;
        for (const line of lines) {
          now += line.advanceMs;
          const event = classifyUsbLine(line.text);
          if (event) addEvent(record, event, now);
        }
        const verdicts = attribute(record, { now, controllerOfBus: (bus) => CONTROLLERS[bus] ?? `bus ${bus}` });
        expect(verdicts.map((v) => [v.layer, v.subject])).toEqual([[scenario.layer, scenario.subject]]);
      }),
    );
  });
});
