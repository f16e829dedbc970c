import type { Reading } from './readings.js';
import type { DeviceRecord } from './record.js';

/** A device as readers see it: its record and its reading, as they stood when asked for. */
export type DeviceSnapshot = Readonly<DeviceRecord> & Readonly<Reading>;
