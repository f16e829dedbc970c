// The record per port kept across restarts, with the last kernel record read, so a restart does not count the ring
// buffer twice. A file that cannot be read as one is set aside with one line. What is written is bounded
// (boundRecord); what is read back may be larger (MAX_BYTES): an older version's record is cut to the bound, not lost.
import type { Logger } from '../../log/logger.js';
import { readStateFile, writeAtomically } from '../../util/atomic-file.js';
import { boundRecord, emptyRecord, recordFrom, type PortRecord } from './port-record.js';
import { jsonObject } from '../../util/json-object.js';

export const USB_PORTS_FILE = 'usb-ports.json';
/** What is read back at most: the agent writes at most MAX_RECORD_BYTES (4 MiB); versions before it wrote up to about 25 MB. */
const MAX_BYTES = 64 * 1024 * 1024;

export interface StoredPorts {
  record: PortRecord;
  /** Which log and boot `seq` counts in ("BOOT_ID /dev/kmsg"). */
  source?: string;
  /** The last kernel record read from that source. */
  seq?: number;
}

export class PortRecordFile {
  constructor(
    readonly file: string,
    private readonly logger: Logger,
  ) {}

  load(): StoredPorts {
    let text: string | undefined;
    try {
      text = readStateFile(this.file, MAX_BYTES);
    } catch (err) {
      this.logger.warn({ file: this.file, err }, `the USB port record ${this.file} cannot be read (${(err as Error).message}); starting an empty one`);
      return { record: emptyRecord() };
    }
    if (text === undefined) return { record: emptyRecord() };
    const stored = jsonObject(text) ?? {};
    const record = recordFrom(stored.record);
    if (!record) {
      this.logger.warn(
        { file: this.file },
        `the USB port record ${this.file} is not one the agent wrote; starting an empty one (it is replaced at the next save)`,
      );
      return { record: emptyRecord() };
    }
    return {
      record,
      ...(typeof stored.source === 'string' ? { source: stored.source } : {}),
      ...(typeof stored.seq === 'number' ? { seq: stored.seq } : {}),
    };
  }

  /** Saves; a failure is one line, and the record stays in memory for the next try. */
  save(stored: StoredPorts): boolean {
    boundRecord(stored.record);
    try {
      writeAtomically(this.file, `${JSON.stringify(stored)}\n`);
      return true;
    } catch (err) {
      this.logger.warn(
        { file: this.file, err },
        `the USB port record could not be saved to ${this.file} (${(err as Error).message}); it is kept in memory and tried again`,
      );
      return false;
    }
  }
}
