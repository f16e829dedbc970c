// The probes of the phone's radio: the IMEI the shell may read, the SIM slots and the mobile data state.
import type { Probe } from './types.js';
import {
  IDENTIFIER_PROPS,
  imeisFromProps,
  isImei,
  meidFromProps,
  mobileDataState,
  parseParcelString,
  parseTelephonyRegistry,
  type Registry,
  simSlots,
} from '../parsers/telephony.js';
import type { CarrierInfo, Telephony } from '../../../../cloud/types.js';
import type { Props } from '../parsers/getprop.js';

export const imei: Probe<string> = {
  section: 'imei',
  tier: 'connection',
  command: 't service call iphonesubinfo 1',
  fields: ['telephony.carriersInfo.imei'],
  note: 'IMEI of the default slot where the shell may read it (Android 9 and older)',
  // Cached per connection like every connection-tier section; the telephony probe fills the field.
  parse: (text) => {
    const value = parseParcelString(text);
    return isImei(value) ? value : undefined;
  },
};

export const simState: Probe<string> = {
  section: 'sim_state',
  tier: 'slow',
  command: 'getprop gsm.sim.state',
  fields: ['telephony.carriersInfo'],
  note: 'one SIM state per slot: SIM presence',
  // One line, the same format as the property; the assembler lays it over the
  // property list read once per connection, so the newer reading wins.
  parse: (text) => {
    const value = text.trim();
    return /[\r\n]/.test(value) ? undefined : value;
  },
};

const NO_RADIO_PROPS = ['ro.radio.noril', 'ro.carrier'];

// `dumpsys telephony.registry` is 15-30 KB; only the mDataConnectionState lines the parser reads cross the cable.
export const telephony: Probe<Registry> = {
  section: 'telephony',
  tier: 'volatile',
  command: "t dumpsys telephony.registry 2>&1 | keep '*mDataConnectionState=*'",
  fields: ['telephony.mobileDataState'],
  note: '`dumpsys telephony.registry`, only the mDataConnectionState lines sent back',
  props: ['gsm.sim.state', ...IDENTIFIER_PROPS, ...NO_RADIO_PROPS],
  parse: parseTelephonyRegistry,
  // One carrier entry per SIM slot. IMEI of slot 0 from `service call iphonesubinfo 1` where the shell may (Android 9
  // and older), else vendor props; what the shell cannot read stays an empty string, the honest answer.
  fill(info, registry, { props, read }) {
    const slots = simSlots(props['gsm.sim.state']);
    const imeis = imeisFromProps(props);
    const serviceImei = read(imei);
    if (serviceImei !== undefined) imeis[0] = serviceImei;
    const count = Math.max(slots.length, imeis.length);
    // A device built without a radio has no carrier: an empty list, a known answer.
    if (count === 0 && hasNoRadio(props)) {
      info.telephony = { carriersInfo: [] };
      return;
    }
    if (!registry && count === 0) return;
    const meid = meidFromProps(props) ?? '';
    const carriersInfo: CarrierInfo[] = [];
    for (let slot = 0; slot < count; slot++) {
      carriersInfo.push({ slot, imei: imeis[slot] ?? '', meid: slot === 0 ? meid : '', iccid: '' });
    }
    const result: Telephony = { carriersInfo };
    const state = registry ? mobileDataState(registry) : undefined;
    if (state !== undefined) result.mobileDataState = state;
    info.telephony = result;
  },
};

/** ro.radio.noril (no radio interface layer) or ro.carrier=wifi-only, as Wi-Fi-only builds set them. */
function hasNoRadio(props: Props) {
  const noril = (props['ro.radio.noril'] ?? '').trim().toLowerCase();
  return ['yes', 'true', '1'].includes(noril) || props['ro.carrier'] === 'wifi-only';
}
