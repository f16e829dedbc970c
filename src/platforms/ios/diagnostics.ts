// An iPhone's battery wear through the diagnostics relay
// (com.apple.mobile.diagnostics_relay), a lockdown service over plain USB:
// no tunnel, no developer disk image. StartService in the inventory's
// lockdown session gives its port; the connection speaks lockdown's framing,
// over TLS when the answer says so. Read on the slow tier only, last in the
// session: a relay that refuses or does not answer costs that reading alone.
//
// What it answers (the catalogue: pymobiledevice3's DiagnosticsService and
// go-ios' diagnostics package send the same requests; the recordings in
// test/features/wear/fixtures/SOURCES.md):
// - IORegistry with EntryClass IOPMPowerSource: the battery's IORegistry
//   entry, {"Status":"Success","Diagnostics":{"IORegistry":{...}}}:
//   CycleCount, DesignCapacity, NominalChargeCapacity and AppleRawMaxCapacity
//   (mAh) at its top on older iOS, the capacities nested in BatteryData on
//   iOS 26; MaxCapacity is a percent (100) there, never a capacity;
// - GasGauge: {"Diagnostics":{"GasGauge":{CycleCount, DesignCapacity,
//   FullChargeCapacity}}}, FullChargeCapacity a percent, always 100, since
//   iOS 12.2 (libimobiledevice issue 1068), mAh before;
// - an answer with Status other than Success, or an Error, when it refuses.
import { cycleCountOf, plausibleMah, type BatteryWear, type Unread } from '../wear.js';
import { LockdownError } from './errors.js';
import { dictOf, type Dict } from './framing.js';
import type { LockdownClient } from './lockdown.js';

const DIAGNOSTICS_RELAY = 'com.apple.mobile.diagnostics_relay';

export interface RelayWear {
  battery?: BatteryWear;
  unread: Unread[];
}

const int = (v: unknown) => {
  const n = typeof v === 'bigint' ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) ? n : undefined;
};

/** The battery's figures in an IORegistry answer, the nested BatteryData first where iOS puts them there. */
export function batteryFromIoRegistry(answer: Dict | undefined) {
  const reg = dictOf(dictOf(answer?.Diagnostics)?.IORegistry);
  if (!reg) return undefined;
  const data = dictOf(reg.BatteryData) ?? {};
  const first = (...values: unknown[]) => values.map(int).find((v) => v !== undefined);
  const cycles = cycleCountOf(first(reg.CycleCount, data.CycleCount));
  const design = first(data.DesignCapacity, reg.DesignCapacity);
  const full = first(data.NominalChargeCapacity, reg.NominalChargeCapacity, data.AppleRawMaxCapacity, reg.AppleRawMaxCapacity);
  return wearOf('ioregistry', cycles, full, design);
}

/**
 * The cycles of a GasGauge answer; its FullChargeCapacity only where it is
 * mAh (before iOS 12.2), never its percent: 100 is below a fifth of any
 * phone's design capacity, which healthOf refuses.
 */
export function batteryFromGasGauge(answer: Dict | undefined) {
  const gauge = dictOf(dictOf(answer?.Diagnostics)?.GasGauge);
  if (!gauge) return undefined;
  return wearOf('gasgauge', cycleCountOf(int(gauge.CycleCount)), int(gauge.FullChargeCapacity), int(gauge.DesignCapacity));
}

/** The figures that read, undefined when neither the cycles nor the health do. */
function wearOf(source: 'ioregistry' | 'gasgauge', cycles: number | undefined, full: number | undefined, design: number | undefined) {
  const health = healthOf(full, design);
  if (cycles === undefined && health === undefined) return undefined;
  return { source, ...(cycles !== undefined && { cycleCount: cycles }), ...(health && { fullMah: full!, designMah: design!, healthPercent: health }) };
}

/** Full in % of design, where both are a phone's mAh (plausibleMah). */
function healthOf(full: number | undefined, design: number | undefined) {
  if (full === undefined || design === undefined || !plausibleMah(full, design)) return undefined;
  return Math.round((full / design) * 100);
}

/**
 * Reads the relay inside the session `lockdown` holds: StartService, the
 * service's own connection (`open`: usbmuxd's Connect to its port, TLS
 * where asked), the IORegistry battery entry, the GasGauge when the entry has
 * no figure, Goodbye. Never throws: what it could not read is unread, with
 * why; `lockdownAlive` says whether the session's connection still stands.
 */
export async function readRelayWear(
  lockdown: LockdownClient,
  open: (port: number, ssl: boolean) => Promise<LockdownClient>,
  timeoutMs: number,
): Promise<RelayWear & { lockdownAlive: boolean }> {
  let service: { port: number; ssl: boolean };
  try {
    service = await lockdown.startService(DIAGNOSTICS_RELAY, timeoutMs);
  } catch (err) {
    const refused = err instanceof LockdownError;
    return {
      unread: [{ what: 'diagnostics relay', why: 'refused', detail: refused ? `lockdown answered ${err.code}` : (err as Error).message }],
      lockdownAlive: refused,
    };
  }
  let relay: LockdownClient | undefined;
  try {
    relay = await open(service.port, service.ssl);
    const ask = async (body: Dict) => {
      const answer = await relay!.request(body, timeoutMs);
      if (typeof answer.Status === 'string' && answer.Status !== 'Success') throw new LockdownError(String(body.Request), answer.Status);
      return answer;
    };
    const battery =
      batteryFromIoRegistry(await ask({ Request: 'IORegistry', EntryClass: 'IOPMPowerSource' })) ?? batteryFromGasGauge(await ask({ Request: 'GasGauge' }));
    await relay.request({ Request: 'Goodbye' }, timeoutMs).catch(() => undefined);
    return battery
      ? { battery, unread: [], lockdownAlive: true }
      : { unread: [{ what: 'diagnostics relay', why: 'garbage', detail: 'no battery figure in its answers' }], lockdownAlive: true };
  } catch (err) {
    const detail = err instanceof LockdownError ? `it answered ${err.code}` : (err as Error).message;
    return { unread: [{ what: 'diagnostics relay', why: 'refused', detail }], lockdownAlive: true };
  } finally {
    relay?.close();
  }
}
