// Root evidence without running su (which can pop a grant prompt on the device): the uid the adb shell runs as, and a
// listing of known su paths.

/** `id` output, e.g. "uid=2000(shell) gid=2000(shell) groups=... context=u:r:shell:s0". */
export function parseIdUid(text: string) {
  const match = /(?:^|\s)uid=(\d+)/.exec(text);
  if (!match) return undefined;
  const uid = Number(match[1]);
  return Number.isSafeInteger(uid) ? uid : undefined;
}

// A listed entry starts with its mode: regular file or symlink (Magisk links su to its own binary).
const LISTED = /^[-l][-rwxsStT]{9}/;

/** `ls -l <su paths>`: true when an su is listed, false when none is, undefined when the text is not a listing. */
export function parseSuListing(text: string) {
  const lines = text
    .replace(/\r/g, '')
    .split('\n')
    .filter((line) => line.trim() !== '');
  if (lines.some((line) => LISTED.test(line) && /(^|[\s/])su(\s|$)/.test(line))) return true;
  if (lines.length > 0 && lines.every((line) => /No such file|Permission denied|not found/i.test(line))) {
    return false;
  }
}
