import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attribute, type Layer } from '../../../src/features/usb/attribution.js';
import { classifyUsbLine } from '../../../src/features/usb/classify.js';
import { addEvent, emptyRecord, linkPort } from '../../../src/features/usb/port-record.js';

// Random kernel logs of a lab (2 controllers, 2 hubs each, 4 ports per hub,
// a healthy phone enumerated on every port, healthy re-plugs as noise)
// where one layer is made to fail: a port with several phones, a phone on
// several ports adb placed it on, every port of a hub at once (in any of the
// kernel's wordings of a hub's port errors), a hub's own requests, a
// controller (dead, with the slot and bandwidth errors that follow a death,
// or out of slots or bandwidth), a hub's power (over-current on several of
// its ports), one port's load (over-current on it alone). The lines go
// through the real classifier and record on an injected wall clock; the
// verdict must name that layer and that one only.

const CONTROLLERS: Record<number, string> = { 1: '0000:00:14.0', 2: '0000:03:00.0' };
const HUBS = ['1-1', '1-2', '2-1', '2-2'];
const PORTS = HUBS.flatMap((h) => [1, 2, 3, 4].map((p) => `${h}.${p}`));
const baseline = (port: string): string => `BASE${port.replace(/\D/g, '')}`;
const START = Date.UTC(2026, 10, 24, 8, 0, 0);

/** A kernel line, or adb placing a phone on a port (its usb path). */
type Line = { text: string; advanceMs: number; link?: { port: string; serial: string } };
const enumerate = (port: string, serial: string, n: number): string[] => [
  `usb ${port}: new high-speed USB device number ${n} using xhci_hcd`,
  `usb ${port}: SerialNumber: ${serial}`,
];
const failureLine = fc.constantFrom(
  (p: string) => `usb ${p}: device descriptor read/64, error -71`,
  (p: string) => `usb ${p}: device not accepting address 12, error -71`,
  (p: string) => `usb ${p}: reset high-speed USB device number 12 using xhci_hcd`,
  (p: string) => `usb ${p}: not running at top speed; connect to a high speed hub`,
  (p: string) => `usb ${p}: Device not responding to setup address.`,
  (p: string) => `usb ${p.slice(0, p.lastIndexOf('.'))}-port${p.slice(p.lastIndexOf('.') + 1)}: cannot reset (err = -71)`,
  (p: string) => `usb ${p.slice(0, p.lastIndexOf('.'))}-port${p.slice(p.lastIndexOf('.') + 1)}: Cannot enable. Maybe the USB cable is bad?`,
  (p: string) => `usb ${p.slice(0, p.lastIndexOf('.'))}-port${p.slice(p.lastIndexOf('.') + 1)}: cannot disable (err = -71)`,
  (p: string) => `hub ${p.slice(0, p.lastIndexOf('.'))}:1.0: cannot disable port ${p.slice(p.lastIndexOf('.') + 1)} (err = -71)`,
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
  /** adb's placing of phones, before the lines (the phone scenario's evidence). */
  links?: Array<{ port: string; serial: string }>;
  /** What the evidence must and must not say. */
  says?: RegExp;
  saysNot?: RegExp;
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
    links: ports.map((port) => ({ port, serial: 'BADPHONE' })),
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

/** What follows a controller's death on it and its ports: slot and bandwidth errors, failures: its consequences. */
const echo = fc.constantFrom(
  (c: string) => `xhci_hcd ${c}: Error while assigning device slot ID: Command Aborted`,
  (c: string) => `xhci_hcd ${c}: Error while assigning device slot ID`,
  (c: string) => `xhci_hcd ${c}: Max number of devices this xHCI host supports is 32.`,
  (c: string) => `xhci_hcd ${c}: Timeout while waiting for setup device command`,
  (_: string, p: string) => `usb ${p}: Not enough bandwidth for new device state.`,
  (_: string, p: string) => `usb ${p}: Not enough host controller resources for new device state.`,
  (_: string, p: string) => `usb ${p.slice(0, p.lastIndexOf('.'))}-port${p.slice(p.lastIndexOf('.') + 1)}: couldn't allocate usb_device`,
  (_: string, p: string) => `usb ${p}: device descriptor read/64, error -71`,
);
const death = fc.constantFrom(
  ['xHCI host controller not responding, assume dead', 'HC died; cleaning up'],
  ['Abort failed to stop command ring: -110', 'xHCI host controller not responding, assume dead', 'HC died; cleaning up'],
  ['WARNING: Host System Error', 'Host halt failed, -110', 'xHCI host not responding to stop endpoint command', 'HC died; cleaning up'],
);

const badController = fc
  .record({
    bus: fc.constantFrom(1, 2),
    how: fc.constantFrom('died', 'limit', 'every port'),
    fails: fc.array(failures, { minLength: 8, maxLength: 8 }),
    died: death,
    echoes: fc.array(fc.tuple(echo, fc.integer({ min: 0, max: 7 })), { maxLength: 12 }),
  })
  .map(({ bus, how, fails, died, echoes }): Scenario => {
    const ports = PORTS.filter((p) => p.startsWith(`${bus}-`));
    const controller = CONTROLLERS[bus]!;
    const lines =
      how === 'died'
        ? [
            ...died.map((d) => `xhci_hcd ${controller}: ${d}`),
            ...ports.map((p, i) => `usb ${p}: USB disconnect, device number ${50 + i}`),
            ...echoes.map(([e, i]) => e(controller, ports[i]!)),
          ]
        : how === 'limit'
          ? [
              `xhci_hcd ${controller}: Error while assigning device slot ID: No Slots Available Error`,
              `usb ${ports[0]!}: Not enough bandwidth for new device state.`,
            ]
          : ports.flatMap((p, i) => fails[i]!.map((f) => f(p)));
    return {
      layer: 'controller',
      subject: controller,
      ports,
      burst: true,
      lines,
      ...(how === 'died' ? { says: /the kernel found it dead once/, saysNot: /out of devices or bandwidth/ } : {}),
    };
  });

const badHubItself = fc.record({ hub: fc.constantFrom(...HUBS), n: fc.integer({ min: 2, max: 6 }) }).map(({ hub, n }): Scenario => ({
  layer: 'hub',
  subject: hub,
  ports: [1, 2, 3, 4].map((p) => `${hub}.${p}`),
  burst: false,
  lines: Array.from({ length: n }, (_, i) => (i % 2 ? `usb ${hub}: clear tt 1 (9082) error -71` : `hub ${hub}:1.0: hub_ext_port_status failed (err = -71)`)),
}));

const overCurrentLine = (port: string, i: number): string => {
  const hub = port.slice(0, port.lastIndexOf('.'));
  const number = port.slice(port.lastIndexOf('.') + 1);
  return i % 2 ? `hub ${hub}:1.0: over-current condition on port ${number}` : `usb ${hub}-port${number}: over-current condition`;
};

/** Over-current on one port while the hub's other ports work: that port's load (its phone or cable), not the hub's supply. */
const overCurrentOnePort = fc.record({ port: fc.constantFrom(...PORTS), n: fc.integer({ min: 1, max: 3 }) }).map(({ port, n }): Scenario => ({
  layer: 'port',
  subject: port,
  ports: [port],
  burst: false,
  lines: Array.from({ length: n }, (_, i) => overCurrentLine(port, i)),
  says: /draws more than the port gives, not the hub's supply/,
}));

/** Over-current on several ports of one hub: its supply. */
const overCurrentHub = fc
  .record({ hub: fc.constantFrom(...HUBS), ports: fc.uniqueArray(fc.integer({ min: 1, max: 4 }), { minLength: 2, maxLength: 4 }) })
  .map(({ hub, ports }): Scenario => {
    const over = ports.map((p) => `${hub}.${p}`);
    return { layer: 'hub-power', subject: hub, ports: over, burst: false, lines: over.map((p, i) => overCurrentLine(p, i)) };
  });

/** Healthy re-plugs of ports' own phones: a disconnect and the same phone back. */
const noise = fc.array(fc.record({ port: fc.constantFrom(...PORTS), n: fc.integer({ min: 60, max: 120 }) }), { maxLength: 12 });

const world = fc.record({
  scenario: fc.oneof(badPort, badPhone, badHub, badHubItself, badController, overCurrentOnePort, overCurrentHub),
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
        const controllerOfBus = (bus: number): string | undefined => CONTROLLERS[bus];
        let now = START;
        // adb lists the phones it places (their usb path) as the lab starts.
        for (const { port, serial } of scenario.links ?? []) linkPort(record, port, serial, [serial], now);
        for (const line of lines) {
          now += line.advanceMs;
          const event = classifyUsbLine(line.text);
          if (event) addEvent(record, event, now, { controllerOfBus });
        }
        const verdicts = attribute(record, { now, controllerOfBus });
        expect(verdicts.map((v) => [v.layer, v.subject])).toEqual([[scenario.layer, scenario.subject]]);
        if (scenario.says) expect(verdicts[0]!.evidence).toMatch(scenario.says);
        if (scenario.saysNot) expect(verdicts[0]!.evidence).not.toMatch(scenario.saysNot);
      }),
    );
  });
});
