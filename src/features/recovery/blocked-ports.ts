// Hub ports whose power cycle failed in a way no retry fixes: not cycled again until the settings change (a restart) or
// the hub's status listing does, which is asked now and then to see the hardware change.
import { limited } from '../../log/limited.js';
import type { Logger } from '../../log/logger.js';
import type { PortPower } from '../../hub/uhubctl.js';
import { errorText } from '../../util/error-text.js';

/** How often a hub whose port cannot be cycled is asked for its status listing, to see the hardware change. */
const BLOCKED_RECHECK_MS = 60_000;

/** A hub port whose power cycle failed in a way no retry fixes. */
interface BlockedPort {
  /** Why (for the phone's message). */
  why: string;
  /** What the hub's status query said then (its output, or its failure): a different answer is a hardware change. */
  status: string | undefined;
  /** Monotonic ms of the last status query. */
  checkedAt: number;
}

/** The ports blocked, by HUB:PORT: why each is asked, a failed cycle blocks one, and a hub's new answer unblocks it. */
export function blockedPorts(portPower: PortPower | undefined, logger: Logger, monotonic: () => number) {
  const blocked = new Map<string, BlockedPort>();
  let statusInFlight = false;

  /** The hub's status listing, or its failure's text; undefined when the tool has no status query. */
  const hubStatus = async (hub: string) => portPower?.status?.(hub).catch(errorText);

  return {
    /** Why the port cannot be cycled, while it is blocked. */
    why: (hub: string, port: number) => blocked.get(`${hub}:${port}`)?.why,

    /** A power cycle failed in a way no retry fixes (`lasting`, hub/status.ts): the port is blocked, said once, and the reason returned. */
    async block(action: { serial: string; hub: string; port: number }, text: string, lasting: string) {
      const why = `${lasting}: ${text}`;
      const status = await hubStatus(action.hub);
      blocked.set(`${action.hub}:${action.port}`, { why, status, checkedAt: monotonic() });
      limited(logger).warn(
        'recovery-cycle-blocked',
        { serial: action.serial, hub: action.hub, port: action.port, err: text },
        `power-cycling hub ${action.hub} port ${action.port} behind ${action.serial} cannot work (${why}); it is not tried again until the settings change (restart the agent) or the hub's port listing does. Check hubPorts and the hub (\`uhubctl -l ${action.hub}\`)`,
        `${action.hub}:${action.port}`,
      );
      return why;
    },

    /** Asks the hubs of blocked ports for their status now and then: a different answer lets the port be cycled again. */
    recheck(now: number) {
      if (statusInFlight || !portPower?.status) return;
      const due = [...blocked].find(([, b]) => now - b.checkedAt >= BLOCKED_RECHECK_MS);
      if (!due) return;
      const [place, entry] = due;
      entry.checkedAt = now;
      statusInFlight = true;
      const hub = place.slice(0, place.lastIndexOf(':'));
      void hubStatus(hub)
        .then((status) => {
          if (status === entry.status || blocked.get(place) !== entry) return;
          blocked.delete(place);
          limited(logger).info(
            'recovery-cycle-unblocked',
            { hub, place },
            `hub ${hub} answers differently now; power-cycling ${place} may be tried again`,
            place,
          );
        })
        .finally(() => (statusInFlight = false));
    },
  };
}

export type BlockedPorts = ReturnType<typeof blockedPorts>;
