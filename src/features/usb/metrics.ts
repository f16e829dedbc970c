// The USB layer's series of /metrics, on bounded label sets: failures by port and kind (the first MAX_PORT_SERIES ports
// to fail, the rest as port="other"), the verdicts by layer, and the phones on a port and off their list. Pure.
import type { OffSource } from '../../devices/off-source.js';
import type { Metric, Sample } from '../../util/metric.js';
import { LAYERS, type Layer, type Verdict } from './attribution.js';
import { FAILURE_KINDS, type UsbEventKind } from './messages.js';

/** Ports with a series of their own; a port that fails after these is counted in port="other". */
export const MAX_PORT_SERIES = 32;

/** Prometheus label values in the agent's style: enumeration_failed, hub_power. */
function label(name: string) {
  return name.replace(/-/g, '_');
}

/**
 * The failures per port since start. A port keeps its series once it has one (a counter moved to "other" would go
 * backwards), so these are the first to fail, not the worst: the record per port names the worst.
 */
export class PortFailureCounts {
  private readonly ports = new Map<string, Map<UsbEventKind, number>>();
  private readonly other = new Map<UsbEventKind, number>();

  add(port: string, kind: UsbEventKind) {
    if (!FAILURE_KINDS.has(kind)) return;
    let counts = this.ports.get(port);
    if (!counts && this.ports.size < MAX_PORT_SERIES) this.ports.set(port, (counts = new Map<UsbEventKind, number>()));
    const into = counts ?? this.other;
    into.set(kind, (into.get(kind) ?? 0) + 1);
  }

  samples() {
    const out: Sample[] = [];
    for (const [port, counts] of this.ports) for (const [kind, value] of counts) out.push({ labels: { port, kind: label(kind) }, value });
    // Every kind of "other", 0 or not: the label values an alert names are always served.
    for (const kind of FAILURE_KINDS) out.push({ labels: { port: 'other', kind: label(kind) }, value: this.other.get(kind) ?? 0 });
    return out;
  }
}

/** `standing`: the verdicts of the record now; `logged`: the verdicts logged since the agent started (each new one once), by layer. */
export function usbMetrics(failures: PortFailureCounts, standing: readonly Verdict[], logged: ReadonlyMap<Layer, number>): Metric[] {
  return [
    {
      name: 'device_agent_usb_port_failures_total',
      help: `USB failures the kernel logged since the agent started, by port path (the first ${MAX_PORT_SERIES} ports to fail; the rest in port="other") and kind`,
      type: 'counter',
      samples: failures.samples(),
    },
    {
      name: 'device_agent_usb_verdicts',
      help: "the USB layer's attributions standing now (the record per port, today and yesterday UTC), by the layer blamed",
      type: 'gauge',
      samples: LAYERS.map((layer) => ({ labels: { layer: label(layer) }, value: standing.filter((v) => v.layer === layer).length })),
    },
    {
      name: 'device_agent_usb_verdicts_total',
      help: "the USB layer's attributions logged since the agent started (each new one once), by the layer blamed",
      type: 'counter',
      samples: LAYERS.map((layer) => ({ labels: { layer: label(layer) }, value: logged.get(layer) ?? 0 })),
    },
  ];
}

/** What the kernel shows of a phone off its source's list beyond its port, as a label value: `port` when nothing more. */
const OFF_LIST_MODES = ['port', 'bootloader', 'offers_source'] as const;

/** The phones the last report carried as on a port and off their list, by source and what the port shows; every pair served. */
export function offListMetric(offs: readonly OffSource[], sources: readonly string[]): Metric {
  return {
    name: 'device_agent_usb_off_list_devices',
    help: "phones on a USB port (sysfs) that their source no longer lists, at the last report, by source and what the port shows more (bootloader, offers_source: its source's own interface; port: nothing more)",
    type: 'gauge',
    samples: sources.flatMap((source) =>
      OFF_LIST_MODES.map((mode) => ({ labels: { source, mode }, value: offs.filter((o) => o.source === source && label(o.mode ?? 'port') === mode).length })),
    ),
  };
}
