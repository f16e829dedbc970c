// adb authorization that lapses (lapse.ts, ledger.ts) under the feature
// contract: at each report the phones adb has connected are noted with the
// window their inventory read (the facts capability), a phone away is
// warned about once before it drops this host's key, and one back
// unauthorized after its lapse says why in its message.
import { join } from 'node:path';
import { isReadyState } from '../../cloud/device-facts.js';
import type { Feature, FeatureContext } from '../context.js';
import type { SeenPhone } from './lapse.js';
import { AuthLedger } from './ledger.js';

/** Where the phones away are kept across restarts. */
export const STATE_FILE = 'adb-authorizations.json';
/** adb's word for a phone that has not authorized this host. */
const UNAUTHORIZED = 'unauthorized';

export function adbAuthorizationFeature(ctx: FeatureContext): Feature {
  const leadMs = ctx.settings.adbAuthorization.warnHours * 3_600_000;
  if (leadMs === 0) return { name: 'adb-authorization' };
  const { registry } = ctx;
  const facts = ctx.platforms.facts;
  const ledger = new AuthLedger({
    file: ctx.stateDir === undefined ? undefined : join(ctx.stateDir, STATE_FILE),
    leadMs,
    wall: () => ctx.clock.wall(),
    logger: ctx.logger,
  });
  return {
    name: 'adb-authorization',
    start: () => ledger.load(),
    // The phones adb has connected now (the record's state is its source's ready state, whatever its inventory did: the
    // key is in use), each once by udid, with the window read on its connection.
    annotate: (devices) => {
      const seen = new Map<string, SeenPhone>();
      for (const { udid, state } of devices) {
        if (seen.has(udid) || !isReadyState(state)) continue;
        const [record] = registry.byUdid(udid);
        if (record) seen.set(udid, { udid, serial: record.serial, windowMs: facts.authorizationWindowMs(registry, record.key) });
      }
      ledger.seen([...seen.values()]);
      return [...devices];
    },
    notes: (device) => {
      if (device.state !== UNAUTHORIZED) return [];
      // A phone back after days away is a new record that has not said who it is: found by its adb serial too.
      const lapsed = ledger.lapsedOf(device.udid, device.serial);
      return lapsed
        ? [
            `it dropped this host's adb authorization at ${new Date(lapsed.lastSeenWall + lapsed.windowMs).toISOString()}, away since ${new Date(lapsed.lastSeenWall).toISOString()} (longer than its adb_allowed_connection_time): tap "Allow" on "Allow USB debugging?"`,
          ]
        : [];
    },
    metrics: () => {
      const { lapsing, lapsed } = ledger.counts();
      return [
        {
          name: 'device_agent_adb_authorization_away_devices',
          help: "phones away from this host by their adb authorization: lapsing (it drops this host's key within adbAuthorization.warnHours), lapsed (it dropped it)",
          type: 'gauge',
          samples: [
            { labels: { state: 'lapsing' }, value: lapsing },
            { labels: { state: 'lapsed' }, value: lapsed },
          ],
        },
      ];
    },
  };
}
