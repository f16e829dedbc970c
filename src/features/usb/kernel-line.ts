// One line of the kernel's log, as /dev/kmsg gives it or as dmesg, the journal and syslog print it, reduced to its
// message text. Pure.
//
// A /dev/kmsg record is "PRI,SEQ,TS_USEC,FLAGS[,...];MESSAGE" plus continuation lines starting with a space
// (Documentation/ABI/testing/dev-kmsg); the kernel escapes bytes below 0x20, from 0x7f up, and the backslash as \xNN,
// so a record is one line whatever a device's string holds. The printed forms: dmesg's time forms ("[   86.363426] ",
// -T, -H, "[  +0,202326] "), its "<3>" and "kern  :err   : " prefixes, the journal's and syslog's "Nov 27 20:16:17 host
// kernel: " (ISO dates, a facility.level word, the kernel's time after "kernel:"), and a bare message (dmesg -t).

export interface KernelLine {
  /** The message, without the record's prefix or a printer's timestamp. */
  text: string;
  /** The record's sequence number, for /dev/kmsg records. */
  seq?: number;
  /** The record's time, in microseconds since its boot, for /dev/kmsg records. */
  tsUs?: number;
  /** How the line said it is the kernel's: a /dev/kmsg record, a printer's prefix (dmesg, journal, syslog), or nothing (a bare message). */
  shape: 'kmsg' | 'printed' | 'bare';
}

/** A /dev/kmsg record's message; undefined for a continuation, a malformed record, or a program's record (it could blame a port). */
export function parseKmsgRecord(record: string): KernelLine | undefined {
  const m = /^(\d+),(\d+),(\d+),[^;]*;(.*)$/.exec(record.replace(/\n$/, ''));
  if (!m || Number(m[1]) >> 3 !== 0) return undefined;
  return { text: unescapeKmsg(m[4]!), seq: Number(m[2]), tsUs: Number(m[3]), shape: 'kmsg' };
}

/** A time in dmesg's brackets, in any of its forms; Genode's "[init -> usb] " component prefix too. */
const STAMP = /^\s*\[[\w\s:+.,<>-]{1,48}\]\s?/;
const JOURNAL =
  /^(?:[A-Z][a-z]{2}\s+\d{1,2}\s+\d{1,2}:\d{2}:\d{2}(?:\.\d+)?|\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?)\s+(?:\S+\s+){0,2}kernel:\s?/;

/** A printed line's message, or undefined for an empty one. */
function parseDmesgLine(line: string): KernelLine | undefined {
  let text = line.replace(/\r?\n$/, '');
  let printed = false;
  const strip = (prefix: RegExp, says = true) => {
    const m = prefix.exec(text);
    if (m) text = text.slice(m[0].length);
    printed ||= m !== null && says;
  };
  // journalctl -o short-monotonic puts the time first: "[  123.4] host kernel: usb ...".
  strip(/^\s*\[\s*\d+\.\d+\]\s+\S+\s+kernel:\s?/);
  strip(JOURNAL);
  strip(/^(?:<\d{1,3}>|[a-z]+\s*:[a-z]+\s*: )(?=\[)/, false);
  strip(STAMP);
  return text.trim() === '' ? undefined : { text, shape: printed ? 'printed' : 'bare' };
}

/** /dev/kmsg's \xNN escapes decoded as the UTF-8 bytes they are (a run of them one character or more); an invalid byte is U+FFFD. */
function unescapeKmsg(text: string) {
  return text.replace(/(?:\\x[0-9a-fA-F]{2})+/g, (run) => Buffer.from(run.replace(/\\x/g, ''), 'hex').toString('utf8'));
}

/**
 * A line of a kernel log file: a /dev/kmsg record when it has a record's prefix (then only as one), else a printed or
 * bare line. A continuation line (a record's dictionary, a message's second line) says nothing.
 */
export function parseKernelLogLine(line: string) {
  if (/^\d+,\d+,\d+,/.test(line)) return parseKmsgRecord(line);
  if (/^\s/.test(line) && !/^\s*\[/.test(line)) return undefined;
  return parseDmesgLine(line);
}

/** Why the start of a kernel log file is not one (NUL bytes, or none of its first whole lines a kernel line), or undefined. */
export function notAKernelLog(start: string) {
  if (start.includes('\0')) return 'it holds NUL bytes: a binary file, not a log';
  // Whole lines only: the last may be cut where the read ended.
  const sample = start
    .split('\n')
    .slice(0, -1)
    .filter((l) => l.trim() !== '')
    .slice(0, 200);
  if (sample.length === 0) return undefined;
  const kernel = sample.some((l) => {
    const parsed = parseKernelLogLine(l);
    return parsed !== undefined && (parsed.shape !== 'bare' || /^\S+ \S+: \S/.test(parsed.text));
  });
  return kernel
    ? undefined
    : `none of its first ${sample.length} lines is a kernel line (a /dev/kmsg record, a dmesg, journal or syslog line, or "DRIVER DEVICE: message")`;
}
