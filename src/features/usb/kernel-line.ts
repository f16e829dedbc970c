// One line of the kernel's log, as /dev/kmsg gives it or as dmesg and the
// journal print it, reduced to its message text. Pure: the reader that
// follows the log is in kmsg-reader.ts.
//
// A /dev/kmsg record is "PRI,SEQ,TS_USEC,FLAGS[,...];MESSAGE" followed by
// continuation lines that start with a space (" SUBSYSTEM=usb"): see the
// kernel's Documentation/ABI/testing/dev-kmsg.

export interface KernelLine {
  /** The message, without the record's prefix or dmesg's timestamp. */
  text: string;
  /** The record's sequence number, for /dev/kmsg records. */
  seq?: number;
  /** The record's time, in microseconds since its boot, for /dev/kmsg records. */
  tsUs?: number;
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
  return { text: unescapeKmsg(m[4]!), seq: Number(m[2]), tsUs: Number(m[3]) };
}

/** A dmesg line ("[   86.4] usb 2-3: ...") or a journal line ("Nov 27 20:16:17 host kernel: usb ..."), or a bare message. */
export function parseDmesgLine(line: string): KernelLine | undefined {
  const trimmed = line.replace(/\r?\n$/, '');
  const dmesg = /^\s*\[\s*\d+\.\d+\]\s?(.*)$/.exec(trimmed);
  if (dmesg) return { text: dmesg[1]! };
  const journal = /^\S+\s+\d+\s+[\d:]+\s+(?:\S+\s+)?kernel:\s?(.*)$/.exec(trimmed);
  if (journal) return { text: journal[1]! };
  return trimmed.trim() === '' ? undefined : { text: trimmed };
}

/** /dev/kmsg escapes non-printable bytes as \xNN; a serial number never needs them, so they are decoded only for reading. */
function unescapeKmsg(text: string): string {
  return text.replace(/\\x([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/**
 * A line of a kernel log file: a /dev/kmsg record when it has a record's
 * prefix (then only as one: a program's record must not pass as a dmesg
 * line), else a dmesg or journal line. A continuation line says nothing.
 */
export function parseKernelLogLine(line: string): KernelLine | undefined {
  if (/^\d+,\d+,\d+,/.test(line)) return parseKmsgRecord(line);
  if (/^\s/.test(line) && !/^\s*\[/.test(line)) return undefined;
  return parseDmesgLine(line);
}
