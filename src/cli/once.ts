import { buildParts, cloudClient } from '../agent/build.js';
import { logFailedDevices } from '../report/reporter.js';
import { onConfigError } from '../config/errors.js';
import { NoSpaceForNodeId, resolveNodeId, stateDirOf } from '../config/node-id.js';
import { keptState } from '../status/endpoint-state.js';
import { listOnce, stopSources } from './inventory.js';
import type { Setup } from './setup.js';
import { EXIT, ONCE_CLOUD_SECONDS } from './commands.js';
import { sentence } from '../util/sentence.js';
import type { Settings } from '../config/schema.js';
import type { Credentials } from '../config/credentials.js';
import type { Logger } from '../log/logger.js';

const NOTHING_SENT = 'Nothing was sent: a report without those devices would tell the cloud they are gone.';
const NOTHING_PRINTED = 'Nothing is printed: once would send nothing, since a report without those devices would tell the cloud they are gone.';

/** One inventory, sent (or printed with --dry-run); returns the exit code. */
export async function once(setup: Setup, env: NodeJS.ProcessEnv, dryRun: boolean, stdout: NodeJS.WritableStream) {
  const { settings, logger, credentials } = setup;
  // The cloud's word on this host's phones has one writer: a daemon on this state directory. A reading of its own sent
  // beside it would say otherwise (a phone whose charge the daemon pauses is off adb: gone) and keep its own reported set.
  const daemon = !dryRun && keptState(stateDirOf(settings, env));
  if (daemon) {
    logger.error(
      `the daemon (pid ${daemon.pid}) reports this host's phones from this state directory: a second report would tell the cloud another reading under its node id. Nothing was sent; a SIGHUP makes it report now (systemctl reload device-agent; in a container, podman kill --signal HUP CONTAINER, or docker kill), and once --dry-run prints what this run would send`,
    );
    return EXIT.failed;
  }
  const nodeId = dryRun ? dryRunNodeId(setup, env) : resolveNodeId(settings, env, setup.logger);
  const parts = buildParts(settings, env, logger, { nodeId, cloud: credentials && onceCloud(settings, credentials, logger) });
  try {
    // A source that did not answer lists none of its devices, and a report without them would say they are gone: none
    // goes (a dry run prints none), exit 1 with the source's line, as `list` does.
    const complete = await listOnce(parts, dryRun ? NOTHING_PRINTED : NOTHING_SENT);
    if (!complete) return EXIT.failed;
    // A one-shot command has nothing else to do: it waits for every inventory, each bounded by its own deadline.
    const plan = {
      request: { refresh: 'all' as const, waitForAll: true },
      reason: 'once',
      complete: true,
      listed: true,
      deadline: Date.now() + settings.requestTimeoutSeconds * 2000,
    };
    if (dryRun) {
      stdout.write(JSON.stringify((await parts.reporter.compose(plan)).body, null, 2) + '\n');
      return EXIT.ok;
    }
    const outcome = await parts.reporter.send(plan);
    if (!outcome.delivered) {
      // A one-shot run has no next report: say plainly that nothing went out. The error's own text is a
      // sentence or more (the credentials' says what to check and ends with its period): the line goes on after it.
      logger.error(
        `report not delivered: ${sentence(outcome.error.message)} Nothing went out; device-agent doctor checks the settings and the way to the cloud from this host`,
      );
      return EXIT.failed;
    }
    const sent = new Set(outcome.sent);
    logFailedDevices(
      logger,
      outcome.failedDevices.filter((f) => sent.has(f.udid)),
      outcome.failedDevices.filter((f) => !sent.has(f.udid)),
    );
    return outcome.failedDevices.length ? EXIT.failedDevices : EXIT.ok;
  } finally {
    stopSources(parts);
  }
}

/** once's cloud client: its one attempt cut to ONCE_CLOUD_SECONDS. */
export function onceCloud(settings: Settings, credentials: Credentials, logger: Logger) {
  return cloudClient({ ...settings, requestTimeoutSeconds: Math.min(settings.requestTimeoutSeconds, ONCE_CLOUD_SECONDS) }, credentials, logger);
}

/** The node id a dry run shows: the kept one, or a temporary one when none can be kept (it sends nothing). */
export function dryRunNodeId(setup: Setup, env: NodeJS.ProcessEnv) {
  return onConfigError(
    () => resolveNodeId(setup.settings, env),
    (err) => {
      // A dry run sends nothing, so an unwritable state directory is only worth a warning, which names only
      // the state directory: the daemon's "nothing is reported until ..." does not hold for a run that sends nothing.
      const why = err instanceof NoSpaceForNodeId ? `no node id is kept in ${err.dir} and none can be (${err.code})` : err.message;
      setup.logger.warn(`${why}; this dry run uses a temporary node id`);
      return 'dry-run-unsaved-node-id';
    },
  );
}
