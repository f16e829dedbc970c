// The doctor's lines on the worst USB ports of today and yesterday (UTC) in the daemon's record, each with the layer
// the attribution blames and what to do.
import { join } from 'node:path';
import type { Logger } from '../../log/logger.js';
import { attribute } from './attribution.js';
import { healthLine, worstPorts } from './port-health.js';
import { pruneRecord, type PortRecord } from './port-record.js';
import { PortRecordFile, USB_PORTS_FILE } from './store.js';
import { controllersOfBuses } from './sysfs.js';
import type { CheckResult } from '../../platforms/doctor.js';

/** The ports named at most: the worst, not a page of them. */
const WORST = 3;

/** The record in the state directory; undefined when there is none yet. */
export function readPortRecord(stateDir: string, logger: Logger) {
  return new PortRecordFile(join(stateDir, USB_PORTS_FILE), logger).load()?.record;
}

export function worstPortItems(record: PortRecord | undefined, now: number, sysfsRoot: string, stateDir: string): CheckResult[] {
  const file = join(stateDir, USB_PORTS_FILE);
  if (!record) return [{ status: 'ok', finding: `USB ports: no record yet in ${file} (the daemon writes it as it reads the kernel's messages)` }];
  pruneRecord(record, now);
  const controllers = controllersOfBuses(sysfsRoot);
  const verdicts = attribute(record, { now, controllerOfBus: (bus) => controllers.get(bus) });
  const worst = worstPorts(record, verdicts, now, WORST);
  if (worst.length === 0) {
    return [{ status: 'ok', finding: `USB ports: no failures today or yesterday (UTC) on the ${Object.keys(record.ports).length} ports in ${file}` }];
  }
  return worst.map((h) => ({ status: 'warn', ...healthLine(h) }));
}
