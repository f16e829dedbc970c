// Identity of a device from its system properties (see parsers/getprop.ts). Pure: the same props and adb serial always
// give the same identity.
import { firstProp, type Props } from './parsers/getprop.js';

/** Who the device is, from its properties (identityFromProps). */
export type Identity = ReturnType<typeof identityFromProps>;

// The device's own serial: Android 8+ hides ro.serialno from the shell on some builds, ro.boot.serialno stays readable.
export const SERIAL_KEYS = ['ro.serialno', 'ro.boot.serialno'];

// Build.MODEL first; the partition copies only as fallbacks (GSI builds put a generic name in the system one).
const MODEL_KEYS = ['ro.product.model', 'ro.product.odm.model', 'ro.product.vendor.model'];
const BRAND_KEYS = ['ro.product.brand', 'ro.product.odm.brand', 'ro.product.vendor.brand'];
const MANUFACTURER_KEYS = ['ro.product.manufacturer', 'ro.product.odm.manufacturer', 'ro.product.vendor.manufacturer'];

// Marketing names vendors publish as props (where Build.MODEL is a code), as catalogued in
// github.com/getActivity/DeviceCompat (DeviceMarketName.java); English before localized ones.
const MARKETING_NAME_KEYS = [
  'ro.product.marketname', // Xiaomi, Redmi, POCO (MIUI, HyperOS)
  'ro.product.odm.marketname',
  'ro.product.vendor.marketname',
  'ro.vendor.oplus.market.enname', // OPPO, OnePlus, realme (English)
  'ro.vendor.oplus.market.name',
  'ro.oppo.market.name', // older ColorOS
  'ro.display.series', // OnePlus H2OS/OxygenOS
  'ro.vivo.internet.name', // vivo, iQOO
  'ro.vivo.market.name',
  'ro.config.marketing_name', // Huawei, Honor (EMUI, HarmonyOS, MagicOS)
  'ro.vendor.product.ztename', // ZTE, nubia
  'ro.vendor.asus.product.mkt_name', // ASUS
  'ro.product.en.display', // Lenovo (English)
  'ro.product.display', // Lenovo
  'ro.vendor.product.display', // Motorola (moto X40, edge S30: Build.MODEL is XT2301-5)
] as const;

const ABI_KEYS = ['ro.product.cpu.abi', 'ro.product.cpu.abilist', 'ro.system.product.cpu.abilist'];

const VERSION_KEYS = ['ro.build.version.release', 'ro.build.version.release_or_codename'];
export const FINGERPRINT_KEYS = ['ro.build.fingerprint', 'ro.system.build.fingerprint'];
const EMULATOR_KEYS = ['ro.kernel.qemu', 'ro.boot.qemu', 'ro.hardware', 'ro.boot.hardware', 'ro.product.board', 'ro.build.characteristics', 'ro.build.tags'];

/** Every property identityFromProps reads (the props probe declares them). */
export const IDENTITY_PROPS: readonly string[] = [
  ...new Set([
    ...SERIAL_KEYS,
    'ro.build.version.sdk',
    ...VERSION_KEYS,
    ...MODEL_KEYS,
    ...BRAND_KEYS,
    ...MANUFACTURER_KEYS,
    ...FINGERPRINT_KEYS,
    ...MARKETING_NAME_KEYS,
    ...ABI_KEYS,
    ...EMULATOR_KEYS,
    // isReleaseBuild's; facts.ts reads it too.
    'ro.build.type',
  ]),
];

// Emulator models of the Android SDK images and other well-known emulators.
const EMULATOR_MODEL = /^(sdk_gphone|sdk_google|google_sdk|sdk$|sdk_|Android SDK built for|Emulator\b|Genymotion)/i;
const EMULATOR_HARDWARE = new Set(['goldfish', 'ranchu', 'vbox86', 'ttvm_x86']);

export function identityFromProps(props: Props, adbSerial: string) {
  const serial = firstProp(props, SERIAL_KEYS);
  const abi = firstProp(props, ABI_KEYS)?.split(',')[0]?.trim();
  return {
    udid: serial ?? adbSerial,
    serialNumber: serial ?? adbSerial,
    platformVersion: firstProp(props, VERSION_KEYS),
    modelName: firstProp(props, MODEL_KEYS),
    brandName: firstProp(props, BRAND_KEYS) ?? fingerprintBrand(props) ?? firstProp(props, MANUFACTURER_KEYS),
    marketingName: firstProp(props, MARKETING_NAME_KEYS),
    cpuArchitecture: abi || undefined,
    isEmulator: detectEmulator(props),
  };
}

// ro.build.fingerprint is BRAND/PRODUCT/DEVICE:RELEASE/ID/INCREMENTAL:TYPE/TAGS; its first part stands in when a dump
// carries no ro.product.brand.
function fingerprintBrand(props: Props) {
  const fingerprint = firstProp(props, FINGERPRINT_KEYS);
  const brand = fingerprint?.split('/')[0]?.trim();
  return brand && fingerprint?.split('/').length === 6 ? brand : undefined;
}

/** undefined when the props say nothing (getprop failed), else a verdict. */
export function detectEmulator(props: Props) {
  if (Object.keys(props).length === 0) return undefined;
  // Android up to 11 sets ro.kernel.qemu; from 12 on it is ro.boot.qemu.
  if (props['ro.kernel.qemu'] === '1' || props['ro.boot.qemu'] === '1') return true;
  if (['ro.hardware', 'ro.boot.hardware', 'ro.product.board'].some((key) => EMULATOR_HARDWARE.has(props[key]?.trim().toLowerCase() ?? ''))) return true;
  // ro.build.characteristics alone is weak: a Meizu PRO 5 (user, release-keys) ships "phone emulator". Emulator images
  // have qemu/ranchu props anyway, so the word counts only on builds that are not signed for release.
  if (/\bemulator\b/.test(props['ro.build.characteristics'] ?? '') && !isReleaseBuild(props)) return true;
  const model = props['ro.product.model']?.trim() ?? '';
  if (EMULATOR_MODEL.test(model)) return true;
  return (props['ro.product.manufacturer'] ?? '').trim() === 'Genymotion';
}

function isReleaseBuild(props: Props) {
  return props['ro.build.type']?.trim() === 'user' && props['ro.build.tags']?.trim() === 'release-keys';
}
