// Host heat as the report sees it: after health has judged each phone, when several turned hot together, one warning
// names them and what to check, each hot phone's message points at the host, and /metrics counts them.
import { withNotes } from '../../cloud/device-message.js';
import { isReadyState } from '../../cloud/device-facts.js';
import { limited } from '../../log/limited.js';
import { gauge } from '../../util/metric.js';
import type { Feature, FeatureContext } from '../context.js';
import { hostHeatNote, hostHeatOf } from './host-heat.js';

/** The judge is the one the health monitor reads too, so a phone turning hot during an episode is named by the host's line. */
export function hostHeatFeature(ctx: FeatureContext): Feature {
  const heat = hostHeatOf(ctx);
  const { logger, clock } = ctx;
  return {
    name: 'host-heat',
    annotate: (devices) => {
      const readings = devices.flatMap((d) => {
        const celsius = d.battery?.temperature;
        // A device that is not ready carries its last reading, not a new one.
        return isReadyState(d.state) && typeof celsius === 'number' ? [{ udid: d.udid, celsius }] : [];
      });
      const line = heat.observe(readings, clock.monotonic());
      const own = heat.release();
      const log = limited(logger);
      if (line?.kind === 'start') log.warn('host-hot', { phones: line.phones.map((p) => p.udid), count: line.phones.length }, line.message);
      else if (line) log.info('host-hot-over', { stillHot: line.stillHot, lastedMs: line.lastedMs }, line.message);
      // Health's own words and key for a phone turning hot, said here once the host's pass has spoken.
      for (const w of own) log.warn('device-health-problem', { udid: w.udid, problem: 'battery_hot' }, w.message, w.udid);
      if (!heat.episode) return [...devices];
      const hot = new Set(heat.hotPhones());
      const note = hostHeatNote(hot.size);
      return devices.map((d) => (hot.has(d.udid) ? withNotes({ ...d }, [note]) : d));
    },
    metrics: () => [
      gauge(
        'device_agent_host_hot_phones',
        'Phones of this host whose battery is hot now (health.batteryHotCelsius, with its hysteresis).',
        heat.hotPhones().length,
      ),
      gauge(
        'device_agent_host_hot_episode',
        '1 while several phones of this host turned hot together (the room or the host, not the phones), else 0.',
        heat.episode ? 1 : 0,
      ),
    ],
  };
}
