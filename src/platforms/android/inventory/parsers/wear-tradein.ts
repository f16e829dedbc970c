// Parses the wear_tradein section (probes/wear.ts): `tradeinmode getstatus`,
// Android 16's device report (source.android.com/docs/core/perf/trade-in-mode;
// AOSP's DeviceDiagnostics app, DeviceReportJsonFormatter.kt, builds it):
// one JSON object with
// - battery: cycle_count (BatteryManager's cycle count, when the health HAL
//   has one), health (state of health, % of design), state (the legacy
//   BatteryManager health code), manufacturing_date and first_usage_date
//   (epoch seconds, only when above 0), serial and part_status;
// - storage: useful_lifetime_remaining (%, when the flash tells it) and
//   capacity_bytes (a decimal string);
// - locks.factory_reset_protection: true, and the report holds nothing else
//   (a phone under FRP reports only its locks);
// - imeis, serial and product: identities this parser never keeps.
// Before Android 16 there is no such command: the shell's "not found", or,
// run under toybox's timeout, "timeout: exec tradeinmode: No such file or
// directory"; a phone whose service refuses prints something other than
// JSON. Pure.
import type { BatteryWear, StorageWear, Unread } from '../../../wear.js';
import { jsonObject } from '../../../../util/json-object.js';
import { dropUndefined } from '../../../../util/drop-undefined.js';

export interface WearTradeIn {
  battery?: BatteryWear;
  storage?: StorageWear;
  unread: Unread[];
}

export function parseWearTradeIn(text: string): WearTradeIn {
  const trimmed = text.replace(/\r/g, '').trim();
  if (/tradeinmode: (?:inaccessible or )?not found$/m.test(trimmed) || /^timeout: exec tradeinmode: No such file or directory$/m.test(trimmed)) {
    return { unread: [{ what: 'tradeinmode', why: 'absent' }] };
  }
  const json = objectOf(trimmed);
  if (json === undefined) return { unread: [{ what: 'tradeinmode', why: trimmed === '' ? 'garbage' : 'refused' }] };
  const locks = record(json.locks);
  const battery = record(json.battery);
  const storage = record(json.storage);
  if (!battery && !storage) {
    return {
      unread: [{ what: 'tradeinmode', why: 'refused', detail: locks?.factory_reset_protection === true ? 'factory reset protection is on' : undefined }],
    };
  }
  const out: WearTradeIn = { unread: [] };
  if (battery) {
    const cycleCount = int(battery.cycle_count, 0, 100_000);
    const healthPercent = int(battery.health, 1, 150);
    const made = int(battery.manufacturing_date, 1, 4_102_444_800);
    if (cycleCount !== undefined || healthPercent !== undefined) {
      out.battery = dropUndefined({ source: 'tradeinmode' as const, cycleCount, healthPercent, manufacturedAtMs: made && made * 1000 });
    } else out.unread.push({ what: 'tradeinmode battery', why: 'absent' });
  }
  const remaining = storage ? int(storage.useful_lifetime_remaining, 0, 100) : undefined;
  if (remaining !== undefined) out.storage = { source: 'tradeinmode', lifeUsedPercent: 100 - remaining };
  return out;
}

/**
 * What the cache keeps of a report: its battery and storage only, so that
 * neither the phone's IMEIs nor its serial are held in memory; any other
 * output (an error) as it was, cut short.
 */
export function shrinkTradeIn(text: string) {
  const json = objectOf(text.replace(/\r/g, '').trim());
  if (json === undefined) return text.slice(0, 200);
  return JSON.stringify({ battery: json.battery, storage: json.storage, locks: json.locks });
}

function objectOf(text: string) {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  return start < 0 || end <= start ? undefined : jsonObject(text.slice(start, end + 1));
}

function record(v: unknown) {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function int(v: unknown, min: number, max: number) {
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max ? n : undefined;
}
