// Classified kernel events into the record per port, with what one line cannot tell: a hub's errors just before the
// hub is disconnected are its unplugging, not a failing hub. Those wait HOLD_MS of kernel time in an ordered queue that
// a disconnect of the hub drops. Pure but for the queue; the layer flushes it before working the verdicts out.
import type { UsbEvent } from './classify.js';
import { addEvent, type PortRecord, type RecordOptions } from './port-record.js';

/** How long before a hub's disconnect its errors are the unplug's: the kernel prints them within milliseconds of it. */
const HOLD_MS = 2_000;
/** The queue is a burst's worth at most: a flood is committed as it comes. */
const MAX_HELD = 4_096;

export class KernelRecorder {
  private queue: Array<{ event: UsbEvent; at: number }> = [];

  constructor(
    private readonly record: () => PortRecord,
    private readonly options: RecordOptions = {},
    /** Each event the record counted as a cause, as it is committed (the layer's metrics count them). */
    private readonly counted: (event: UsbEvent) => void = () => undefined,
  ) {}

  add(event: UsbEvent, at: number) {
    if (event.kind === 'disconnect' && event.port !== undefined) this.dropUnplugged(event.port, at);
    this.queue.push({ event, at });
    this.commit(at);
  }

  /** Commits everything waiting: the verdicts are about to be worked out. */
  flush() {
    this.commit(Infinity);
  }

  /** Commits from the head while the head need not wait: not a hub's error, or older than HOLD_MS. */
  private commit(latest: number) {
    while (this.queue.length > 0) {
      const head = this.queue[0]!;
      if (held(head.event) && head.at > latest - HOLD_MS && this.queue.length <= MAX_HELD) return;
      this.queue.shift();
      if (addEvent(this.record(), head.event, head.at, this.options)) this.counted(head.event);
    }
  }

  /** A device left at `at`: the errors of its own hub and of its ports in the moment before are its leaving. */
  private dropUnplugged(device: string, at: number) {
    const under = `${device}.`;
    this.queue = this.queue.filter(({ event, at: when }) => !(held(event) && when >= at - HOLD_MS && (event.hub === device || event.port?.startsWith(under))));
  }
}

/** The causes that may be a hub's unplugging: its own errors, and its ports' failures. */
function held(event: UsbEvent) {
  return event.role === 'cause' && ['hub-error', 'hub-port-error', 'enumeration-failed'].includes(event.kind);
}
