// The in-service clock kept in the state directory across restarts: each
// phone's, port's, hub's and the host's seconds (in total and by the hour,
// two days back), each phone's state, and the last day summed up. Written
// atomically (src/config/state-file.ts); a file that cannot be read as one is
// set aside with one line and the clock starts empty; a field that is not
// one the agent writes is dropped, never trusted.
import { LAYERS, PHONE_STATES, type Layer, type PhoneState } from '../../devices/phone-state.js';
import { Tally } from './tally.js';
import { jsonObject } from '../../util/json-object.js';
import { join } from 'node:path';
import type { Logger } from '../../log/logger.js';
import type { Platform } from '../../devices/record.js';
import { StateFile } from '../../config/state-file.js';

export const AVAILABILITY_FILE = 'availability.json';

export interface StoredPhone {
  udid: string;
  serial: string;
  platform?: Platform;
  port?: string;
  state: PhoneState;
  layer?: Layer;
  /** Wall ms up to which its seconds are counted. */
  creditedAt: number;
  tally: Tally;
}

export interface StoredClock {
  phones: StoredPhone[];
  ports: Array<{ port: string; hub: string; tally: Tally }>;
  hubs: Array<{ hub: string; tally: Tally }>;
  host: Tally;
  /** Wall ms the file was written. */
  savedAt?: number;
  /** The last UTC day (its first wall ms) summed up in the log. */
  summarized?: number;
}

const SAFE = /^[\x20-\x7e]{1,256}$/;
const PLATFORM = /^[a-z]{1,16}$/;
const PORT = /^\d+-\d+(?:\.\d+)*$/;
const HUB = /^(?:\d+-\d+(?:\.\d+)*|usb\d+)$/;

export function clockFrom(text: string) {
  const v = jsonObject(text);
  if (v?.version !== 1) return undefined;
  const list = (x: unknown) => (Array.isArray(x) ? x.filter((e): e is Record<string, unknown> => typeof e === 'object' && e !== null) : []);
  const phones = list(v.phones).flatMap((p) => {
    if (typeof p.udid !== 'string' || !SAFE.test(p.udid) || typeof p.serial !== 'string' || !SAFE.test(p.serial)) return [];
    if (!(PHONE_STATES as readonly string[]).includes(p.state as string) || typeof p.creditedAt !== 'number' || !Number.isFinite(p.creditedAt)) return [];
    const layer = (LAYERS as readonly string[]).includes(p.layer as string) ? (p.layer as Layer) : undefined;
    return [
      {
        udid: p.udid,
        serial: p.serial,
        // A platform the registry names: its source's word on whether its service answers goes on counting for the phone.
        ...(typeof p.platform === 'string' && PLATFORM.test(p.platform) && { platform: p.platform as Platform }),
        ...(typeof p.port === 'string' && PORT.test(p.port) && { port: p.port }),
        state: p.state as PhoneState,
        layer,
        creditedAt: p.creditedAt,
        tally: Tally.from(p.tally),
      },
    ];
  });
  const ports = list(v.ports).flatMap((p) =>
    typeof p.port === 'string' && PORT.test(p.port) && typeof p.hub === 'string' && HUB.test(p.hub)
      ? [{ port: p.port, hub: p.hub, tally: Tally.from(p.tally) }]
      : [],
  );
  const hubs = list(v.hubs).flatMap((h) => (typeof h.hub === 'string' && HUB.test(h.hub) ? [{ hub: h.hub, tally: Tally.from(h.tally) }] : []));
  const time = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);
  return {
    phones,
    ports,
    hubs,
    host: Tally.from(v.host),
    summarized: time(v.summarized),
  };
}

export function clockText(clock: StoredClock) {
  return `${JSON.stringify({ version: 1, ...clock })}\n`;
}

/** The file in the state directory; `every`, how often it is saved, for its line when a save fails. */
export function clockFile(stateDir: string, everyMs: number, logger: Logger) {
  return new StateFile<StoredClock>(
    join(stateDir, AVAILABILITY_FILE),
    {
      what: 'the in-service record',
      // Far more than the agent writes (about 5 KB a phone at most).
      maxBytes: 16 * 1024 * 1024,
      parse: clockFrom,
      text: clockText,
      lost: 'it starts empty',
      unsaved: `it is kept in memory and saved again in ${everyMs / 60_000} minutes (a restart meanwhile loses what it counted since the last save)`,
    },
    logger,
  );
}
