import { STATUS_UNAVAILABLE } from '../cloud/types.js';
import type { DeviceInfo } from '../cloud/types.js';
import type { Logger } from '../log/logger.js';
import { chargingOf, isReadyState } from '../cloud/device-facts.js';

import { evaluate, type HealthInput, type HealthSettings, type Problem } from './rules.js';

/**
 * Applies the health rules to each report's devices: a problem gets one
 * warning when it starts and one line when it ends, a message on the
 * device's record for as long as it lasts, and UNAVAILABLE where its rule
 * asks for it. Remembers only the devices of the last report.
 */
export class HealthMonitor {
  private readonly active = new Map<string, ReadonlySet<Problem>>();

  constructor(
    private readonly settings: HealthSettings,
    private readonly logger: Logger,
  ) {}

  /** The devices with their problems applied (new objects; the inputs are not changed). */
  apply(infos: readonly DeviceInfo[], shellFailures: (udid: string) => number): DeviceInfo[] {
    const seen = new Set<string>();
    const out = infos.map((info) => {
      seen.add(info.udid);
      // A device that is not ready carries no readings: its problems stand
      // as they were until it answers again, and its record says why it is
      // not ready.
      if (!isReadyState(info.state)) return info;
      const previous = this.active.get(info.udid) ?? new Set<Problem>();
      const findings = evaluate(inputOf(info, shellFailures(info.udid)), previous, this.settings);
      const now = new Set(findings.map((f) => f.problem));
      for (const f of findings) if (!previous.has(f.problem)) this.logger.warn({ udid: info.udid, problem: f.problem }, `device ${info.udid}: ${f.message}`);
      for (const p of previous) if (!now.has(p)) this.logger.info({ udid: info.udid, problem: p }, `device ${info.udid}: ${p.replace('_', ' ')} is over`);
      if (now.size) this.active.set(info.udid, now);
      else this.active.delete(info.udid);
      if (!findings.length) return info;
      // The collector's own message already says that the shell does not answer.
      const messages = findings.filter((f) => !(f.problem === 'shell_unresponsive' && info.message)).map((f) => f.message);
      const next: DeviceInfo = { ...info, message: [info.message, ...messages].filter(Boolean).join('; ') };
      if (findings.some((f) => f.unavailable)) next.status = STATUS_UNAVAILABLE;
      return next;
    });
    for (const udid of this.active.keys()) if (!seen.has(udid)) this.active.delete(udid);
    return out;
  }

  problems(udid: string): readonly Problem[] {
    return [...(this.active.get(udid) ?? [])];
  }
}

function inputOf(info: DeviceInfo, consecutiveShellFailures: number): HealthInput {
  const battery = info.battery;
  const percent = battery?.percentage === undefined ? undefined : Number(battery.percentage);
  const storage = info.storage;
  return {
    temperatureCelsius: battery?.temperature,
    batteryPercent: percent !== undefined && Number.isFinite(percent) ? percent : undefined,
    charging: chargingOf(battery?.status),
    storageFreeBytes: storage ? Math.max(0, storage.total - storage.used) : undefined,
    storageTotalBytes: storage?.total,
    consecutiveShellFailures,
  };
}
