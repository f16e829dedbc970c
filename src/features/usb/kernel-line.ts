// One line of the kernel's log, as /dev/kmsg gives it or as dmesg, the
// journal and syslog print it, reduced to its message text. Pure: the
// follower that reads the log is follow.ts.
//
// A /dev/kmsg record is "PRI,SEQ,TS_USEC,FLAGS[,...];MESSAGE" followed by
// continuation lines that start with a space (" SUBSYSTEM=usb"): see the
// kernel's Documentation/ABI/testing/dev-kmsg. The kernel escapes every byte
// below 0x20, from 0x7f up, and the backslash as \xNN, so a record is one
// line whatever a device's string holds (a newline in a product name).
//
// The printed forms read here: dmesg's "[   86.363426] " and its other time
// forms (-T "[Sat Dec 13 19:59:07 2025] ", -H "[Aug 1 02:03] " and
// "[  +0,202326] "), its raw "<3>" and decoded "kern  :err   : " prefixes,
// the journal's and syslog's "Nov 27 20:16:17 host kernel: " (ISO dates,
// a facility.level word, and the kernel's own time after "kernel:" too),
// and a bare message (dmesg -t).

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

/**
 * A /dev/kmsg record's message, or undefined for a continuation line, a
 * malformed record, or a message a program wrote (facility other than the
 * kernel's): anyone allowed to write /dev/kmsg could otherwise blame a port.
 */
export function parseKmsgRecord(record: string): KernelLine | undefined {
  const m = /^(\d+),(\d+),(\d+),[^;]*;(.*)$/.exec(record.replace(/\n$/, ''));
  if (!m) return undefined;
  const pri = Number(m[1]);
  if (pri >> 3 !== 0) return undefined;
  return { text: unescapeKmsg(m[4]!), seq: Number(m[2]), tsUs: Number(m[3]), shape: 'kmsg' };
}

/** A time in dmesg's brackets, in any of its forms; Genode's "[init -> usb] " component prefix too. */
const STAMP = /^\s*\[[\w\s:+.,<>-]{1,48}\]\s?/;
const JOURNAL =
  /^(?:[A-Z][a-z]{2}\s+\d{1,2}\s+\d{1,2}:\d{2}:\d{2}(?:\.\d+)?|\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?)\s+(?:\S+\s+){0,2}kernel:\s?/;

/** A printed line's message, or undefined for an empty one. */
export function parseDmesgLine(line: string): KernelLine | undefined {
  let text = line.replace(/\r?\n$/, '');
  let printed = false;
  // journalctl -o short-monotonic puts the time first: "[  123.4] host kernel: usb ...".
  const monotonic = /^\s*\[\s*\d+\.\d+\]\s+\S+\s+kernel:\s?/.exec(text);
  if (monotonic) {
    text = text.slice(monotonic[0].length);
    printed = true;
  }
  const journal = JOURNAL.exec(text);
  if (journal) {
    text = text.slice(journal[0].length);
    printed = true;
  }
  const raw = /^<\d{1,3}>(?=\[)/.exec(text) ?? /^[a-z]+\s*:[a-z]+\s*: (?=\[)/.exec(text);
  if (raw) text = text.slice(raw[0].length);
  const stamp = STAMP.exec(text);
  if (stamp) {
    text = text.slice(stamp[0].length);
    printed = true;
  }
  if (text.trim() === '') return undefined;
  return { text, shape: printed ? 'printed' : 'bare' };
}

/** /dev/kmsg's \xNN escapes decoded as the UTF-8 bytes they are (a run of them one character or more); an invalid byte is U+FFFD. */
function unescapeKmsg(text: string): string {
  return text.replace(/(?:\\x[0-9a-fA-F]{2})+/g, (run) => Buffer.from(run.replace(/\\x/g, ''), 'hex').toString('utf8'));
}

/**
 * A line of a kernel log file: a /dev/kmsg record when it has a record's
 * prefix (then only as one: a program's record must not pass as a dmesg
 * line), else a printed or bare line. A continuation line says nothing: a
 * record's dictionary (" SUBSYSTEM=usb"), or the rest of a message that held
 * a newline, which dmesg and journalctl print indented.
 */
export function parseKernelLogLine(line: string): KernelLine | undefined {
  if (/^\d+,\d+,\d+,/.test(line)) return parseKmsgRecord(line);
  if (/^\s/.test(line) && !/^\s*\[/.test(line)) return undefined;
  return parseDmesgLine(line);
}

/**
 * Why text read from the start of a kernel log file is not one, or undefined
 * when it may be (or cannot be told yet: no whole line): NUL bytes (a
 * binary file, or /dev/zero), or none of its first whole lines read as a
 * kernel line (a record, a printed line, or a bare "DRIVER DEVICE: message").
 */
export function notAKernelLog(start: string, lines = 200): string | undefined {
  if (start.includes('\0')) return 'it holds NUL bytes: a binary file, not a log';
  // Whole lines only: the last may be cut where the read ended.
  const sample = start
    .split('\n')
    .slice(0, -1)
    .filter((l) => l.trim() !== '')
    .slice(0, lines);
  if (sample.length === 0) return undefined;
  const kernel = sample.some((l) => {
    const parsed = parseKernelLogLine(l);
    return parsed !== undefined && (parsed.shape !== 'bare' || /^\S+ \S+: \S/.test(parsed.text));
  });
  return kernel
    ? undefined
    : `none of its first ${sample.length} lines is a kernel line (a /dev/kmsg record, a dmesg, journal or syslog line, or "DRIVER DEVICE: message")`;
}
