import { HEALTH } from '../../devices/verdicts.js';
import { withNotes } from '../../cloud/device-message.js';
import type { BatteryDetail, DeviceInfo } from '../../cloud/types.js';
import type { Platform } from '../../devices/record.js';
import { facetKey } from '../../devices/facet.js';
import type { DeviceRegistry } from '../../devices/registry.js';
import type { Logger } from '../../log/logger.js';
import { chargingOf, isReadyState } from '../../cloud/device-facts.js';
import { dropUndefined } from '../../util/drop-undefined.js';

import { isTcpSerial } from '../../util/tcp-serial.js';
import { evaluate, type HealthSettings, type Problem } from './rules.js';
import { fullOnPower, heldFullSeconds, observeFull, type HeldFull } from './held-full.js';
import type { HostHeat } from '../host-heat/host-heat.js';

/** A device's battery figures beyond the report's: its rows and metrics show them. */
export interface BatterySignals {
  /** Seconds full on external power without a break; 0 when not full. */
  heldFullSeconds: number;
  chargerMillivolts?: number;
}

/** What the health rules keep of a device's battery from one report to the next. */
export interface BatteryState {
  /** The stretch its battery has been full on power, when it is (see held-full.ts). */
  heldFull?: HeldFull;
  signals: BatterySignals;
}
import { limited } from '../../log/limited.js';
import { systemClock } from '../../util/clock.js';

/** Health's facet: the battery's state of each record, dropped with it. */
export const BATTERY = facetKey<BatteryState>('health-battery', 'record');

/** The battery state the health monitor keeps of a device's record. */
export function batteryOf(records: Pick<DeviceRegistry, 'facet'>, key: string | undefined) {
  return key === undefined ? undefined : records.facet(BATTERY).get(key);
}

/** Health's facet: the problems that hold on each record, standing across reconnects until the device answers again. */
const PROBLEMS = facetKey<readonly Problem[]>('health-problems', 'record');

/** The health problems that hold on a device's record now. */
export function problemsOf(records: Pick<DeviceRegistry, 'facet'>, key: string | undefined) {
  return (key === undefined ? undefined : records.facet(PROBLEMS).get(key)) ?? [];
}

/**
 * Applies the health rules to each report's devices: a problem gets one warning when it starts and one line when it
 * ends, a message on the device while it lasts, and UNAVAILABLE where its rule asks. Its state is health's facets.
 */
export class HealthMonitor {
  constructor(
    private readonly settings: HealthSettings,
    private readonly logger: Logger,
    /** Wall clock, for readings that do not say when they were taken: the agent's injected one (the report path holds no real timer). */
    private readonly now: () => number = () => systemClock.wall(),
    /** The host-level judge of hot batteries, to which a phone's hot warning is handed (said there, or named by its line); none: said at once. */
    private readonly heat?: Pick<HostHeat, 'hold'>,
  ) {}

  /** The devices with their problems applied (new objects); `shell`: the platforms whose failures count shell sessions (default all). */
  apply(infos: readonly DeviceInfo[], records: Pick<DeviceRegistry, 'byUdid' | 'facet' | 'timeline'>, shell?: ReadonlySet<Platform>) {
    return infos.map((withDetail) => {
      // The battery detail is the agent's own: no report carries it.
      const { batteryDetail: detail, ...rest } = withDetail;
      const info: DeviceInfo = detail === undefined ? withDetail : rest;
      // Not ready: no readings, so its problems stand until it answers again, and its record says why.
      if (!isReadyState(info.state)) return info;
      const behind = records.byUdid(info.udid);
      const previous = new Set(problemsOf(records, behind[0]?.key));
      // The rule counts shell sessions; a platform whose failures are not (an iPhone's lockdown) says so in its own message.
      const failures = behind.reduce((least, r) => Math.min(least, !shell || shell.has(r.platform) ? r.failures : 0), Infinity);
      const battery = this.batteryState(info, detail, batteryOf(records, behind[0]?.key));
      const kept = records.facet(BATTERY);
      for (const r of behind) {
        if (battery === undefined) kept.delete(r.key);
        else kept.set(r.key, battery);
      }
      // A HOST:PORT serial is a phone over the network; no udid (an iPhone's serial) ends in a port.
      const overNetwork = behind.length > 0 && behind.every((r) => isTcpSerial(r.serial));
      const findings = evaluate({ ...inputOf(info, Number.isFinite(failures) ? failures : 0, battery?.signals), overNetwork }, previous, this.settings);
      const now = new Set(findings.map((f) => f.problem));
      const log = limited(this.logger);
      for (const f of findings) {
        if (previous.has(f.problem)) continue;
        if (f.problem === 'battery_hot' && this.heat) this.heat.hold({ udid: info.udid, message: `device ${info.udid}: ${f.message}` });
        else log.warn('device-health-problem', { udid: info.udid, problem: f.problem }, `device ${info.udid}: ${f.message}`, info.udid);
      }
      for (const p of previous)
        if (!now.has(p)) log.info('device-health-over', { udid: info.udid, problem: p }, `device ${info.udid}: ${p.replaceAll('_', ' ')} is over`, info.udid);
      const held = records.facet(PROBLEMS);
      for (const r of behind) held.set(r.key, [...now]);
      // UNAVAILABLE, out of service for a problem of its own, while one that says so holds: the report composes it, the in-service clock reads it.
      const out = findings.some((f) => f.unavailable);
      records.timeline.verdict(info.udid, HEALTH, out ? { unavailable: true, out: { state: 'needs_person', layer: 'phone' } } : undefined);
      if (!findings.length) return info;
      // The collector's own message already says that the shell does not answer.
      const messages = findings.filter((f) => !(f.problem === 'shell_unresponsive' && info.message)).map((f) => f.message);
      return withNotes({ ...info }, messages);
    });
  }

  private batteryState(info: DeviceInfo, detail: BatteryDetail | undefined, previous: BatteryState | undefined) {
    if (!info.battery && !detail) return undefined;
    const heldFull = observeFull(previous?.heldFull, fullOnPower(info.battery, detail?.externalPower), detail?.observedAtMs ?? this.now());
    const signals: BatterySignals = dropUndefined({
      heldFullSeconds: heldFull ? heldFullSeconds(heldFull) : 0,
      // The charger's figure describes a plugged charger only.
      chargerMillivolts: detail?.externalPower === false ? undefined : detail?.chargerMillivolts,
    });
    return dropUndefined({ heldFull, signals });
  }
}

function inputOf(info: DeviceInfo, consecutiveShellFailures: number, signals: BatterySignals | undefined) {
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
    batteryHealth: battery?.health,
    heldFullSeconds: signals?.heldFullSeconds || undefined,
    chargerMillivolts: signals?.chargerMillivolts,
  };
}
