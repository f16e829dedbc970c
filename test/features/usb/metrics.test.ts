import { describe, expect, it } from 'vitest';
import type { Verdict } from '../../../src/features/usb/attribution.js';
import { classifyUsbLine } from '../../../src/features/usb/classify.js';
import { MAX_PORT_SERIES, PortFailureCounts, usbMetrics } from '../../../src/features/usb/metrics.js';

// The USB series on bounded label sets. The failures are real kernel lines
// (the classifier's fixtures name their sources: test/features/usb/fixtures/)
// put on many ports.

const count = (counts: PortFailureCounts, line: string): void => {
  const event = classifyUsbLine(line)!;
  counts.add(event.port!, event.kind);
};
const value = (counts: PortFailureCounts, port: string, kind: string): number | undefined =>
  counts.samples().find((s) => s.labels?.port === port && s.labels.kind === kind)?.value;

describe('the USB series', () => {
  it('count failures by port and kind for the first 32 ports to fail, the rest summed in port="other", and never a healthy line', () => {
    expect(MAX_PORT_SERIES).toBe(32);
    const counts = new PortFailureCounts();
    // 40 ports on 5 hubs, each with one enumeration failure; the first port also resets twice.
    const ports = Array.from({ length: 40 }, (_, i) => `1-${Math.floor(i / 8) + 1}.${(i % 8) + 1}`);
    for (const port of ports) count(counts, `usb ${port}: device descriptor read/64, error -71`);
    count(counts, `usb ${ports[0]!}: reset high-speed USB device number 5 using xhci_hcd`);
    count(counts, `usb ${ports[0]!}: reset high-speed USB device number 5 using xhci_hcd`);
    count(counts, `usb ${ports[0]!}: new high-speed USB device number 5 using xhci_hcd`);
    count(counts, `usb ${ports[0]!}: USB disconnect, device number 5`);
    // A port past the cap that fails again stays in "other"; a port with its own series keeps it.
    count(counts, `usb ${ports[39]!}: device descriptor read/64, error -71`);
    count(counts, `usb ${ports[31]!}: device descriptor read/64, error -71`);

    const samples = counts.samples();
    const own = new Set(samples.map((s) => s.labels!.port).filter((p) => p !== 'other'));
    expect(own.size).toBe(MAX_PORT_SERIES);
    expect(own).toEqual(new Set(ports.slice(0, MAX_PORT_SERIES)));
    expect(value(counts, ports[0]!, 'enumeration_failed')).toBe(1);
    expect(value(counts, ports[0]!, 'reset')).toBe(2);
    expect(value(counts, ports[31]!, 'enumeration_failed')).toBe(2);
    expect(value(counts, 'other', 'enumeration_failed')).toBe(40 - MAX_PORT_SERIES + 1);
    // Every kind of "other" is served, 0 or not; no kind a healthy line would give.
    expect(samples.filter((s) => s.labels!.port === 'other').map((s) => s.labels!.kind)).toEqual([
      'enumeration_failed',
      'reset',
      'slow_speed',
      'hub_port_error',
      'over_current',
      'power_budget',
      'controller_limit',
      'controller_died',
      'controller_error',
      'hub_error',
    ]);
    expect(samples.some((s) => /new_device|disconnect|serial/.test(s.labels!.kind!))).toBe(false);
  });

  it('count the verdicts standing and those logged by layer, every layer served', () => {
    const verdict = (layer: Verdict['layer'], subject: string): Verdict => ({ layer, subject, ports: [], evidence: '' });
    const [, standing, logged] = usbMetrics(
      new PortFailureCounts(),
      [verdict('hub', '1-1'), verdict('hub', '1-2'), verdict('port', '2-1.3')],
      new Map([
        ['hub', 3],
        ['hub-power', 1],
      ]),
    );
    expect(standing!.samples).toEqual([
      { labels: { layer: 'controller' }, value: 0 },
      { labels: { layer: 'hub_power' }, value: 0 },
      { labels: { layer: 'hub' }, value: 2 },
      { labels: { layer: 'port' }, value: 1 },
      { labels: { layer: 'phone' }, value: 0 },
    ]);
    expect(logged!.samples.map((s) => s.value)).toEqual([0, 1, 3, 0, 0]);
  });
});
