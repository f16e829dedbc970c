import type { CarrierInfo, Telephony } from '../../../../cloud/types.js';
import type { Props } from '../parsers/getprop.js';
import { IDENTIFIER_PROPS, imeisFromProps, meidFromProps, mobileDataState, parseTelephonyRegistry, simSlots, type Registry } from '../parsers/telephony.js';
import { imei } from './imei.js';
import type { Probe } from './types.js';

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
