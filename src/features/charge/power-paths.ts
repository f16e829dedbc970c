// The hub ports found not to cut a phone's power when off, kept across restarts: charge control does not switch them
// for a pause again, and its feature notes and counts them.
import type { Logger } from '../../log/logger.js';
import { gauge } from '../../util/metric.js';
import { portsFile, type PortsFile } from './paused-ports.js';

/** A hub port that kept a phone on power while switched off. */
export interface UncutPort {
  hub: string;
  port: number;
  /** The phone it was seen with. */
  udid: string;
  /** What was seen, as the lines say it ("2 readings on power over 24 s with the port off"). */
  seen: string;
  /** Wall ms when it was found. */
  atWall: number;
}

export class PowerPaths {
  private readonly uncut = new Map<string, UncutPort>();
  private loaded = false;

  constructor(private readonly keeper?: PortsFile<UncutPort>) {}

  /** Reads the kept ports once: at charge control's start, not while the daemon is built. */
  load() {
    if (this.loaded) return;
    this.loaded = true;
    for (const p of this.keeper?.load() ?? []) this.uncut.set(placeKey(p.hub, p.port), p);
  }

  /** The port's mark, when it does not cut power. */
  uncutAt(hub: string, port: number): Readonly<UncutPort> | undefined {
    return this.uncut.get(placeKey(hub, port));
  }

  /** The marks of ports this phone was found on (none for a phone with no udid yet). */
  uncutFor(udid: string | undefined): Array<Readonly<UncutPort>> {
    return [...this.uncut.values()].filter((p) => p.udid === udid);
  }

  /** Marks a port; false when it was already. */
  mark(p: UncutPort) {
    const key = placeKey(p.hub, p.port);
    if (this.uncut.has(key)) return false;
    this.uncut.set(key, p);
    this.keeper?.save([...this.uncut.values()]);
    return true;
  }

  metrics() {
    return [
      gauge(
        'device_agent_charge_ports_without_power_cut',
        'Hub ports that kept a phone on power while switched off for a charge pause; charge control no longer switches them.',
        this.uncut.size,
      ),
    ];
  }
}

/** The file of the ports that do not cut power, in the state directory. */
export function uncutPortsFile(file: string, logger: Logger) {
  return portsFile<UncutPort>(file, logger, {
    isItem: isUncutPort,
    keyOf: (p) => placeKey(p.hub, p.port),
    lost: 'hub ports found not to cut power are forgotten, and are tried for a charge pause again',
    unsaved: 'after a restart they would be tried for a charge pause again',
    what: 'the hub ports that do not cut power',
  });
}

function placeKey(hub: string, port: number) {
  return `${hub}:${port}`;
}

function isUncutPort(v: unknown): v is UncutPort {
  const p = v as Partial<UncutPort> | null;
  return typeof p?.hub === 'string' && typeof p.port === 'number' && typeof p.udid === 'string' && typeof p.seen === 'string' && typeof p.atWall === 'number';
}
