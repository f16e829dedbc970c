import { AdbUnreachableError } from '../adb/errors.js';
import { buildParts, cloudClient } from '../agent/parts.js';
import { Reporter } from '../agent/reporter.js';
import { ConfigError } from '../config/errors.js';
import { resolveNodeId } from '../config/node-id.js';
import type { DeviceInfo } from '../cloud/types.js';
import { collectIphonesOnce } from '../ios/setup.js';
import type { Setup } from './setup.js';
import { sendingCredentials } from './setup.js';

export const EXIT_OK = 0;
export const EXIT_NOT_DELIVERED = 1;
export const EXIT_CONFIG = 2;
export const EXIT_FAILED_DEVICES = 3;

/** One inventory, sent (or printed with --dry-run); returns the exit code. */
export async function once(setup: Setup, env: NodeJS.ProcessEnv, dryRun: boolean, stdout: NodeJS.WritableStream): Promise<number> {
  const { settings, logger } = setup;
  const credentials = dryRun ? undefined : sendingCredentials(settings, env);
  const nodeId = dryRun ? dryRunNodeId(setup, env) : resolveNodeId(settings, env);
  const parts = buildParts(settings, env, logger);

  // iOS (issue 14): the iPhones usbmuxd lists are inventoried beside the
  // Android devices and appended; the lead re-wires this at the planner merge.
  const collectDevices = async (): Promise<DeviceInfo[]> => {
    const [android, iphones] = await Promise.all([collectAndroid(), collectIphonesOnce(settings, env, logger)]);
    return [...android, ...iphones];
  };
  const collectAndroid = async (): Promise<DeviceInfo[]> => {
    try {
      const list = await parts.adb.listDevices();
      return await parts.collector.collect(new Map(list.map((d) => [d.serial, d.state])), 'all');
    } catch (err) {
      if (!(err instanceof AdbUnreachableError)) throw err;
      logger.warn({ adb: parts.adb.label }, `${err.message}. The report carries the Machine part only.`);
      return [];
    }
  };

  if (dryRun) {
    const [devices, machine] = await Promise.all([collectDevices(), parts.machine.collect()]);
    stdout.write(JSON.stringify({ nodeId, machine, devices }, null, 2) + '\n');
    return EXIT_OK;
  }

  const reporter = new Reporter({
    nodeId,
    cloud: cloudClient(settings, credentials!, logger),
    collectDevices,
    collectMachine: () => parts.machine.collect(),
    failed: parts.failed,
    unplugged: parts.unplugged,
    stats: parts.stats,
    logger,
    deadline: () => Date.now() + settings.requestTimeoutSeconds * 2000,
  });
  const outcome = await reporter.request('once');
  if (!outcome.delivered) return EXIT_NOT_DELIVERED;
  return outcome.failedDevices.length ? EXIT_FAILED_DEVICES : EXIT_OK;
}

function dryRunNodeId(setup: Setup, env: NodeJS.ProcessEnv): string {
  try {
    return resolveNodeId(setup.settings, env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    // A dry run sends nothing, so an unwritable state directory is only worth a warning.
    setup.logger.warn(`${err.message}; this dry run uses a temporary node id`);
    return 'dry-run-unsaved-node-id';
  }
}
