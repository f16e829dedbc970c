// Values the probes write into the shell script.

// Where su binaries live: classic SuperSU/phh paths, Magisk's /sbin (Android
// up to 10) and /debug_ramdisk (Android 11+), and the /su of systemless SuperSU.
export const SU_PATHS = [
  '/system/bin/su',
  '/system/xbin/su',
  '/system/sbin/su',
  '/sbin/su',
  '/su/bin/su',
  '/debug_ramdisk/su',
  '/vendor/bin/su',
  '/data/local/su',
  '/data/local/bin/su',
  '/data/local/xbin/su',
];

// Only hostnames and IP literals go into the script: the value is shell text.
const SAFE_HOST = /^[A-Za-z0-9][A-Za-z0-9.:-]{0,252}$/;

export function isSafeHost(host: string) {
  return SAFE_HOST.test(host);
}
