// Telephony from `dumpsys telephony.registry` (one block per phone on multi-SIM devices, "Phone Id=N") and the Parcel
// text that `service call iphonesubinfo N` prints.

// TelephonyManager.DATA_* constants.
const DATA_STATES: Record<string, string> = {
  '-1': 'UNKNOWN',
  '0': 'DISCONNECTED',
  '1': 'CONNECTING',
  '2': 'CONNECTED',
  '3': 'SUSPENDED',
  '4': 'DISCONNECTING',
  '5': 'HANDOVER_IN_PROGRESS',
};

export interface Registry {
  /** mDataConnectionState per phone, in the order printed. */
  dataStates: string[];
}

export function parseTelephonyRegistry(text: string) {
  const states = [...text.replace(/\r/g, '').matchAll(/^\s*mDataConnectionState=(-?\d+)\s*$/gm)].map((match) => DATA_STATES[match[1]!]);
  return { dataStates: states.filter((state) => state !== undefined) };
}

/** One state for the device: connected on any SIM wins. */
export function mobileDataState(registry: Registry) {
  if (registry.dataStates.includes('CONNECTED')) return 'CONNECTED';
  return registry.dataStates[0];
}

/**
 * Decodes the String16 a successful `service call` returns: rows of "0xOFFSET: word word word word 'ascii'", the first
 * word the status (0 = no exception), the second the length in UTF-16 units, then two characters per little-endian
 * word. Undefined for an exception parcel (Android 10+ denies the shell).
 */
export function parseParcelString(text: string) {
  if (!/Result: Parcel\(/.test(text)) return undefined;
  let hex = [...text.matchAll(/0x[0-9a-f]+:\s+((?:[0-9a-f]{8}\s+){0,3}[0-9a-f]{8})/gi)].map((match) => match[1]).join(' ');
  // Short results fit on the opening line: "Result: Parcel(00000000 ffffffff   '........')".
  if (hex === '') hex = /Parcel\(((?:[0-9a-f]{8}\s*)+)/i.exec(text)?.[1] ?? '';
  const words = hex
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => Number.parseInt(word, 16));
  const [status, length] = words;
  if (status !== 0 || length === undefined || length <= 0 || length > 256) return undefined;
  const units = words.slice(2).flatMap((word) => [word & 0xffff, word >>> 16]);
  if (units.length < length) return undefined;
  return String.fromCharCode(...units.slice(0, length));
}

/** 14-16 digit IMEI (15 with check digit; 14/16 appear as IMEISV-style values). */
export function isImei(value: string | undefined): value is string {
  return value !== undefined && /^\d{14,16}$/.test(value);
}

/** gsm.sim.state holds one comma-separated state per SIM slot. */
export function simSlots(simState: string | undefined) {
  if (simState === undefined || simState.trim() === '') return [];
  return simState.split(',').map((s) => s.trim());
}

// Device identifiers vendors also publish as properties, readable on every Android version (`service call
// iphonesubinfo` is refused to the shell from 10 on), as found in Xiaomi and Meizu dumps (fixtures/getprop/collect).
const IMEI_PAIR_KEYS: readonly (readonly [string, string])[] = [
  ['ro.ril.oem.imei1', 'ro.ril.oem.imei2'], // Xiaomi
  ['ro.ril.miui.imei0', 'ro.ril.miui.imei1'], // Xiaomi
  ['persist.radio.imei1', 'persist.radio.imei2'], // Xiaomi
  ['ro.vendor.oem.imei1', 'ro.vendor.oem.imei2'], // Xiaomi (Redmi K50 Pro, 12S Pro)
  ['ro.vendor.ril.oem.imei1', 'ro.vendor.ril.oem.imei2'], // Redmi Note 11R
];
const IMEI_LIST_KEY = 'ril.gsm.imei'; // Meizu: "slot1,slot2"
const MEID_KEYS = ['ro.ril.oem.meid', 'persist.radio.meid', 'ro.vendor.oem.meid', 'ril.cdma.meid'];

/** The properties imeisFromProps and meidFromProps read. */
export const IDENTIFIER_PROPS: readonly string[] = [...IMEI_PAIR_KEYS.flat(), IMEI_LIST_KEY, ...MEID_KEYS];

/** IMEI per SIM slot from vendor props, in slot order ('' where a slot has none). */
export function imeisFromProps(props: Readonly<Record<string, string>>) {
  for (const [first, second] of IMEI_PAIR_KEYS) {
    const pair = [props[first]?.trim(), props[second]?.trim()];
    if (pair.some(isImei)) return trimEmpty(pair.map((value) => (isImei(value) ? value : '')));
  }
  const list = props[IMEI_LIST_KEY]?.split(',').map((value) => value.trim()) ?? [];
  return list.some(isImei) ? trimEmpty(list.map((value) => (isImei(value) ? value : ''))) : [];
}

/** MEID (14 hex digits, CDMA) from vendor props. */
export function meidFromProps(props: Readonly<Record<string, string>>) {
  return MEID_KEYS.map((key) => props[key]?.trim()).find((value) => value !== undefined && /^[0-9A-Fa-f]{14}$/.test(value));
}

function trimEmpty(values: string[]) {
  return values.slice(0, values.findLastIndex((value) => value !== '') + 1);
}
