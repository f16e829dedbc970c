// Whether the kernel has a phone on a port now, from sysfs (its serial on a port) and the kernel log (the last word on
// its last port). Pure but for the bounded memory of that last word per port; recovery reads it as UsbEvidence.
import type { UsbBlame, UsbSeen } from '../../devices/usb-evidence.js';
import type { UsbEvent } from './classify.js';
import { hubOfPort } from '../../util/usb-path.js';

/** As many ports and serials as the record per port keeps. */
const MAX_KEPT = 512;

interface PortWord {
  /** The kernel's last word on the port that says whether a device is on it. */
  last: 'disconnected' | 'failing enumeration' | 'enumerated';
  at: number;
  /** Wall ms of its last disconnect, and of its last new device after it. */
  droppedAt?: number;
  backAt?: number;
}

export class PortWords {
  private readonly ports = new Map<string, PortWord>();
  private readonly serials = new Map<string, string>();

  /** One classified kernel event at wall ms `at`. */
  add(event: UsbEvent, at: number) {
    const { port } = event;
    if (port === undefined) return;
    if (event.kind === 'serial' && event.serial !== undefined) keep(this.serials, event.serial, port);
    const word = this.ports.get(port);
    if (event.kind === 'disconnect') keep(this.ports, port, { ...word, last: 'disconnected', at, droppedAt: at });
    else if (event.kind === 'enumeration-failed') keep(this.ports, port, { ...word, last: 'failing enumeration', at });
    else if (event.kind === 'new-device' || event.kind === 'serial') keep(this.ports, port, { ...word, last: 'enumerated', at, backAt: at });
  }

  /** The port the kernel last saw one of these serials on. */
  portOf(serials: readonly string[]) {
    return serials.map((s) => this.serials.get(s)).find((p) => p !== undefined);
  }

  of(port: string): Readonly<PortWord> | undefined {
    return this.ports.get(port);
  }
}

/**
 * A phone with these USB serials: enumerated where sysfs shows one (on adb's usb path when given); not enumerated where
 * sysfs shows none and the kernel's last word on its port is a disconnect or a failed enumeration; else undefined.
 */
export function seenOf(
  serials: readonly string[],
  port: string | undefined,
  onUsb: ReadonlyMap<string, readonly string[]>,
  words: PortWords,
  blameOf: (port: string) => UsbBlame | undefined,
): UsbSeen | undefined {
  const on = serials.flatMap((s) => onUsb.get(s) ?? []).find((p) => port === undefined || p === port);
  if (on !== undefined) return { enumerated: true, port: on };
  const where = port ?? words.portOf(serials);
  if (where === undefined) return undefined;
  const word = words.of(where);
  if (!word || word.last === 'enumerated') return undefined;
  const blame = blameOf(where);
  return { enumerated: false, port: where, hub: hubOfPort(where), last: word.last, at: word.at, ...(blame && { blame }) };
}

/** Whether the port dropped, and enumerated a device again after, since wall ms `since`. */
export function cycledOf(words: PortWords, port: string, since: number) {
  const word = words.of(port);
  const dropped = word?.droppedAt !== undefined && word.droppedAt >= since;
  return { dropped, back: dropped && word.backAt !== undefined && word.backAt >= word.droppedAt };
}

function keep<V>(map: Map<string, V>, key: string, value: V) {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_KEPT) map.delete(map.keys().next().value!);
}
