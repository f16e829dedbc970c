import type { Reading } from './readings.js';
import type { DeviceRecord } from './record.js';

/**
 * A device as readers see it: what its source lists (the record) and what it
 * said of itself (its reading), as they stood when it was asked for.
 */
export type DeviceSnapshot = Readonly<DeviceRecord> & Readonly<Reading>;
