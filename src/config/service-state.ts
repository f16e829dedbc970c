// Is another state directory in use than the installed service's? A one-shot
// command run by hand (another user, no $STATE_DIRECTORY) keeps a node id of
// its own, and a report sent from it shows the lab's phones under a second
// node. The systemd unit's StateDirectory=device-agent is /var/lib/device-agent.
import { lstatSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';

export const SERVICE_STATE_DIR = '/var/lib/device-agent';

/**
 * The installed service's state directory when it exists on this host and
 * this run uses another one without a configured node id; undefined
 * otherwise. With DynamicUser= the service's directory is a link into the
 * 0700 /var/lib/private, so only the link itself is looked at.
 */
export function otherServiceStateDir(current: string, nodeIdConfigured: boolean, serviceDir = SERVICE_STATE_DIR): string | undefined {
  if (nodeIdConfigured) return undefined;
  try {
    lstatSync(serviceDir);
  } catch {
    return undefined;
  }
  return sameDir(current, serviceDir) ? undefined : serviceDir;
}

/** What to do about it, for the log line and the doctor. */
export const SERVICE_STATE_ADVICE =
  'run it as the service runs (systemd-run with -p DynamicUser=yes -p StateDirectory=device-agent, see the README), ' +
  "or set DEVICE_AGENT_NODE_ID to the service's node id";

function sameDir(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}
