import { stateDirOf } from '../config/node-id.js';
import { otherServiceStateDir, SERVICE_STATE_ADVICE } from '../config/service-state.js';
import type { Setup } from './setup.js';

/** One warning when a command run by hand uses another state directory than the installed service. */
export function warnOfServiceStateDir(setup: Setup, env: NodeJS.ProcessEnv) {
  const dir = stateDirOf(setup.settings, env);
  const service = otherServiceStateDir(dir, Boolean(setup.settings.nodeId));
  if (!service) return;
  setup.logger.warn(
    { stateDir: dir, serviceStateDir: service },
    `this run keeps its node id in ${dir}, the device-agent service on this host in ${service}: ` +
      `a report sent from here shows the phones under a second node; ${SERVICE_STATE_ADVICE}`,
  );
}
