import type { RecordedRequest } from '../cloud-double/cloud-double.js';

// Reading the agent's reports as the cloud double recorded them.

export interface ReportedDevice {
  udid: string;
  state: string;
  status: string;
  modelName?: string;
  message?: string;
  battery?: { percentage?: string };
}

export const devicesOf = (r: RecordedRequest): ReportedDevice[] => (r.body as { devices?: ReportedDevice[] } | undefined)?.devices ?? [];

export const udidsOf = (r: RecordedRequest): string[] =>
  devicesOf(r)
    .map((d) => d.udid)
    .sort();

/** A request predicate: the report holds the device `udid` and it matches. */
export const reported =
  (udid: string, match: (d: ReportedDevice) => boolean) =>
  (r: RecordedRequest): boolean =>
    devicesOf(r).some((d) => d.udid === udid && match(d));
