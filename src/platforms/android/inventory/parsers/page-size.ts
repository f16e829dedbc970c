// The kernel's memory page size, as `getconf PAGE_SIZE` prints it. Pure.
// toybox's getconf (toys/posix/getconf.c, on Android since toybox's 2017
// getconf) prints sysconf(_SC_PAGE_SIZE) as a decimal line, `undefined` when
// sysconf fails, and `getconf: bad 'NAME'` for a name it does not know; a
// phone without getconf (mksh and toolbox, Android 7 and before) prints its
// shell's "not found". AOSP's page "Get the page size"
// (source.android.com/docs/core/architecture/16kb-page-size/getting-page-size)
// shows `$ getconf PAGE_SIZE` answering `4096`; a 16 KB kernel
// (CONFIG_ARM64_16K_PAGES) answers 16384. Only the page sizes an arm64 or
// x86 kernel can run (4, 16 or 64 KB) are taken; anything else is unknown.

const PAGE_SIZES = new Set([4096, 16384, 65536]);

export function parsePageSize(text: string) {
  const line = text.replace(/\r/g, '').trim();
  if (!/^\d{4,6}$/.test(line)) return undefined;
  const size = Number(line);
  return PAGE_SIZES.has(size) ? size : undefined;
}
