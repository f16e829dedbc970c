// Quarantine as the report and the views see it: a quarantined phone goes out
// UNAVAILABLE with Appium disabled and its message says why, since when,
// until when and on what evidence (the cloud gives it no new session, people
// still see it: isHidden stays the operator's); a quarantine held back by the
// booking gate says so in the message; its counters on /metrics; `list` and
// `doctor` name the phones it holds. Its action is quarantine.ts.
import { holdNote } from '../../actions/runner.js';
import { quarantined } from '../../devices/quarantine.js';
import { QUARANTINED } from '../../devices/verdicts.js';
import type { Feature, FeatureContext } from '../context.js';
import { quarantine, QUARANTINE_RELEASES, QUARANTINES, QUARANTINES_HELD, shortTime } from './quarantine.js';

export function quarantineFeature(ctx: FeatureContext): Feature {
  const { entries, action, start, stop, reported } = quarantine(ctx);
  const { registry, clock } = ctx;
  const held = () => entries.entries().filter(([, e]) => quarantined(e));
  return {
    name: 'quarantine',
    start,
    stop,
    action,
    notes: (device) => [holdNote(registry, device.key, 'quarantine')],
    reported,
    columns: () => (held().length > 0 ? [{ key: 'quarantined', title: 'QUARANTINED' }] : []),
    cells: (info): Record<string, string> => {
      const held = registry.timeline.verdictBy(info.udid, QUARANTINED)?.detail;
      return held ? { quarantined: `until ${shortTime(held.until, clock.wall())}` } : {};
    },
    fields: () => [{ key: 'quarantined', place: { after: 'inService' }, value: (s) => registry.timeline.verdictBy(s.info.udid, QUARANTINED)?.detail }],
    page: (row) => {
      const e = entries.get(row.udid);
      if (!quarantined(e)) return undefined;
      const { since, until, reason, layer, evidence } = e;
      return { quarantine: { since, until, reason, layer, evidence, release: `device-agent quarantine release ${e.serial}` } };
    },
    counters: [QUARANTINES, QUARANTINE_RELEASES, QUARANTINES_HELD],
    metrics: () => [
      {
        name: 'device_agent_quarantined_phones',
        help: 'Phones quarantined now.',
        type: 'gauge',
        samples: [{ value: held().length }],
      },
    ],
    doctor: {
      host: () => {
        const now = clock.wall();
        const list = held();
        if (list.length === 0) return [{ id: 'quarantine', status: 'ok', finding: 'quarantine: no phone is held out of service' }];
        return [
          {
            id: 'quarantine',
            status: 'warn',
            finding: `quarantined: ${list
              .slice(0, 5)
              .map(([, e]) => `${e.serial} until ${shortTime(e.until!, now)} (${e.reason ?? 'kept failing'}${e.layer ? `, ${e.layer}` : ''})`)
              .join(', ')}${list.length > 5 ? `, and ${list.length - 5} more` : ''}`,
            advice:
              'each comes back on its own once its time is over and a check passes; device-agent incidents SERIAL shows what happened, device-agent quarantine release SERIAL puts one back now',
          },
        ];
      },
    },
  };
}
