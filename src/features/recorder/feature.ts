// The flight recorder as the report and the views see it: a ring per phone,
// kept in a file of the state directory's incidents/ when an incident starts,
// listed and shown by `device-agent incidents`; its count on /metrics. It
// offers its log to the features that add to it (INCIDENT_LOG).
import { INCIDENT_LOG, INCIDENT_KINDS } from '../../devices/incidents.js';
import type { Feature, FeatureContext } from '../context.js';
import { recorder } from './recorder.js';

export function recorderFeature(ctx: FeatureContext): Feature {
  const { rings, files, written, log, ...hooks } = recorder(ctx);
  ctx.shared.of(INCIDENT_LOG, () => log);
  return {
    name: 'recorder',
    ...hooks,
    // Its incidents (the newest only on the rack; each with its cause on its own page), and on its own page its ring.
    page: (row, phone) => {
      const incidents = files?.of(row.udid, phone) ?? [];
      return {
        ...(incidents.length > 0 && { incidents: phone ? incidents : incidents.slice(0, 1) }),
        ...(phone && { events: rings.of({ udid: row.udid, serial: row.serial }) }),
      };
    },
    metrics: () => [
      {
        name: 'device_agent_incidents_total',
        help: "Incidents started, by kind (quarantine, person_needed, recovery_failed): each kept the phone's recent history in one file of the state directory's incidents/ (device-agent incidents).",
        type: 'counter',
        samples: INCIDENT_KINDS.flatMap((kind) => {
          const value = written.get(kind);
          return value === undefined ? [] : [{ labels: { kind: kind.replace('-', '_') }, value }];
        }),
      },
    ],
  };
}
