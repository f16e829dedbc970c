// Is another state directory in use than the installed service's (/var/lib/device-agent)? A one-shot command run by hand
// keeps a node id of its own, and its report would show the lab's phones under a second node.
import { lstatSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';

const SERVICE_STATE_DIR = '/var/lib/device-agent';

/** The service's state directory when this run uses another without a configured node id (with DynamicUser= it is a link: only it is looked at). */
export function otherServiceStateDir(current: string, nodeIdConfigured: boolean, serviceDir = SERVICE_STATE_DIR) {
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

/** Who may read the state directory and leave a release in it, for a command refused it. */
export const STATE_ACCESS_ADVICE = "run it as root, or as a user of the agent's group (the package's: usermod -aG device-agent USER, then log in again)";

/** "; STATE_ACCESS_ADVICE" after an error of a user the state directory refuses (EACCES, EPERM); nothing after another. */
export function accessAdvice(err: unknown) {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'EACCES' || code === 'EPERM' ? `; ${STATE_ACCESS_ADVICE}` : '';
}

function sameDir(a: string, b: string) {
  if (resolve(a) === resolve(b)) return true;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}
