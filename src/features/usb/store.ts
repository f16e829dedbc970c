// The record per port kept across restarts, with the last kernel record read, so a restart does not count the ring
// buffer twice. What is written is bounded (boundRecord, by the layer); what is read back may be larger (MAX_BYTES): an
// older version's record is cut to the bound, not lost.
import type { Logger } from '../../log/logger.js';
import { StateFile } from '../../config/state-file.js';
import { recordFrom, type PortRecord } from './port-record.js';
import { jsonObject } from '../../util/json-object.js';

export const USB_PORTS_FILE = 'usb-ports.json';

export interface StoredPorts {
  record: PortRecord;
  /** Which log and boot `seq` counts in ("BOOT_ID /dev/kmsg"). */
  source?: string;
  /** The last kernel record read from that source. */
  seq?: number;
}

export class PortRecordFile extends StateFile<StoredPorts> {
  constructor(file: string, logger: Logger) {
    super(
      file,
      {
        what: 'the USB port record',
        // The agent writes at most MAX_RECORD_BYTES (4 MiB); versions before it wrote up to about 25 MB.
        maxBytes: 64 * 1024 * 1024,
        parse: (text) => {
          const stored = jsonObject(text) ?? {};
          const record = recordFrom(stored.record);
          return (
            record && {
              record,
              ...(typeof stored.source === 'string' && { source: stored.source }),
              ...(typeof stored.seq === 'number' && { seq: stored.seq }),
            }
          );
        },
        text: (stored) => `${JSON.stringify(stored)}\n`,
        lost: 'the record per port starts empty',
        unsaved: 'it is kept in memory and tried again',
      },
      logger,
    );
  }
}
