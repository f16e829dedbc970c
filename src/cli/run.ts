import { buildDaemon, buildParts, cloudClient } from '../agent/build.js';
import { BookingStatusClient } from '../cloud/booking-status.js';
import type { Setup } from './setup.js';
import { limited } from '../log/limited.js';
import { logUnhandledRejections } from './unhandled.js';
import { nodeIdWhenKept } from './node-id-wait.js';

// systemd's default stop timeout is 90 s, docker's 10 s: finish well inside the smaller.
const HARD_EXIT_MS = 9_500;

/** The daemon; resolves with the exit code once a signal has stopped it. */
export async function run(setup: Setup, env: NodeJS.ProcessEnv) {
  const { settings, logger } = setup;
  // setup() has them for a command that sends, or it stopped with exit 2.
  const credentials = setup.credentials!;
  // Listened for before the node id (which may wait for space) and the start (20 s against a mute adb server), or a
  // SIGTERM meanwhile would kill the process by its default action.
  let stopping = false;
  const stopSignal = new Promise<NodeJS.Signals>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) {
        logger.warn({ signal }, `a second ${signal}: exiting now; a report in flight is abandoned and sent again at the next start`);
        exitAfterLog();
        return;
      }
      stopping = true;
      resolve(signal);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
  // A daemon has no terminal to hang up: SIGHUP (systemctl reload) asks for a full report instead, listened for from the
  // start so it never meets its default action; before the agent exists it asks for nothing (the first report is full).
  let built: ReturnType<typeof buildDaemon> | undefined = undefined;
  process.on('SIGHUP', () => {
    if (!built) return;
    limited(logger).info('sighup', {}, 'SIGHUP: a full inventory and report now; settings are read at start only, restart the service to apply changed ones');
    void built.report('SIGHUP');
  });
  const nodeId = await nodeIdWhenKept(settings, env, logger, stopSignal);
  if (nodeId === undefined) {
    logger.info({ signal: await stopSignal }, 'stopping');
    logger.info('stopped while waiting for room to keep a node id; nothing had been reported yet');
    return 0;
  }
  // One attempt per report: the planner's one backoff across reports does the retrying.
  const cloud = cloudClient(settings, credentials, logger);
  // The booking gate's question has a deadline of its own, shorter than a report's.
  const booking = new BookingStatusClient(cloud, settings.recovery.bookingTimeoutSeconds * 1000);
  const parts = buildParts(settings, env, logger, { nodeId, cloud, booking });
  const agent = buildDaemon(parts, nodeId);
  built = agent;

  logUnhandledRejections(logger);

  // Node's default for SIGUSR1 opens its inspector on 127.0.0.1:9229 (any local user could run code as the agent and read
  // its key); SIGUSR2's ends the daemon. A stray one does neither.
  for (const signal of ['SIGUSR1', 'SIGUSR2'] as const) {
    process.on(signal, () =>
      limited(logger).warn('stray-signal', { signal }, `${signal} ignored: the agent takes SIGHUP (a full report now) and SIGTERM/SIGINT (stop)`),
    );
  }
  const startedFirst = await Promise.race([agent.start().then(() => undefined), stopSignal]);
  const signal = startedFirst ?? (await stopSignal);
  logger.info({ signal }, 'stopping');
  if (startedFirst) {
    // The first report starts only once the start is over: nothing is in flight yet.
    logger.info('stopped while starting; nothing had been reported yet');
    return 0;
  }
  setTimeout(() => {
    logger.warn('shutdown took too long; exiting now');
    process.exit(0);
  }, HARD_EXIT_MS).unref();
  await agent.stop();
  return 0;
}

/** Exits 0 once the log line just written has left (stdout to a pipe is asynchronous), or after half a second. */
function exitAfterLog() {
  const exit = () => process.exit(0);
  process.stdout.write('', exit);
  setTimeout(exit, 500);
}
