import type { DeviceInfo } from '../cloud/types.js';
import type { Logger } from '../log/logger.js';
import { StateFile } from '../config/state-file.js';
import { jsonObject } from '../util/json-object.js';
import { storedDevice, storedFields } from './stored-device.js';

/**
 * The devices the cloud was last told are present, by identity, kept in the state directory, so that an agent that
 * starts again reports those that did not come back as UNPLUGGED rather than leave them online for good. Written only
 * when the set of udids changes.
 */
export class ReportedStore extends StateFile<readonly DeviceInfo[]> {
  constructor(file: string, logger: Logger) {
    super(
      file,
      {
        what: 'the reported device set',
        // Far more than the agent writes (its identity, a few hundred bytes a device).
        maxBytes: 16 * 1024 * 1024,
        parse: (text) => {
          const devices = jsonObject(text)?.devices;
          return Array.isArray(devices) ? devices.flatMap((d) => storedDevice(d) ?? []) : undefined;
        },
        text: (devices) => JSON.stringify({ savedAt: new Date().toISOString(), devices: devices.map(storedFields) }) + '\n',
        lost: 'devices unplugged while the agent was down may stay online in the cloud',
        unsaved:
          'reports go on; after a restart, devices unplugged meanwhile may stay online in the cloud until this is fixed (free space, or make the state directory writable)',
        key: (devices) =>
          devices
            .map((d) => d.udid)
            .sort()
            .join('\n'),
      },
      logger,
    );
  }
}
