import { Agent } from '../agent/agent.js';
import { buildParts, cloudClient } from '../agent/build.js';
import { resolveNodeId } from '../config/node-id.js';
import type { Setup } from './setup.js';
import { limited } from '../log/limited.js';

// systemd's default stop timeout is 90 s, docker's 10 s: finish well inside the smaller.
const HARD_EXIT_MS = 9_500;

/** The daemon; resolves with the exit code once a signal has stopped it. */
export async function run(setup: Setup, env: NodeJS.ProcessEnv): Promise<number> {
  const { settings, logger } = setup;
  // setup() has them for a command that sends, or it stopped with exit 2.
  const credentials = setup.credentials!;
  const nodeId = resolveNodeId(settings, env);
  const parts = buildParts(settings, env, logger, { nodeId, cloud: cloudClient(settings, credentials, logger) });
  const agent = new Agent(parts, nodeId);

  process.on('unhandledRejection', (reason) => {
    limited(logger).error('unhandled-rejection', { err: reason instanceof Error ? reason.message : String(reason) }, 'unexpected failure (unhandled rejection); the agent keeps running');
  });

  // A daemon has no terminal to hang up: SIGHUP (systemctl reload, a closed
  // session that started it) asks for a full report instead of killing it.
  process.on('SIGHUP', () => {
    limited(logger).info('sighup', {}, 'SIGHUP: a full inventory and report now; settings are read at start only, restart the service to apply changed ones');
    void agent.report('SIGHUP');
  });
  await agent.start();
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  logger.info({ signal }, 'stopping');
  setTimeout(() => {
    logger.warn('shutdown took too long; exiting now');
    process.exit(0);
  }, HARD_EXIT_MS).unref();
  await agent.stop();
  return 0;
}
