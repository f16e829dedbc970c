// doctor's line for the hub helper: where the hub tool is the helper's client (the package's default), the client's
// program being there says nothing about uhubctl. The helper is asked instead, so that what is checked is what a switch
// would meet: uhubctl on the helper's PATH and each mapped hub's device node, inside the helper's sandbox, reached
// through the socket as the daemon reaches it.

import { basename } from 'node:path';
import { chargeWaysOf } from '../config/charge-ways.js';
import { hubPortsOf } from '../config/hub-ports.js';
import type { Settings } from '../config/schema.js';
import type { CheckResult } from '../doctor/checklist.js';
import { ask, HUB_SOCKET } from './client.js';
import { optionOf } from './request.js';
import { docPath } from '../util/package.js';

/** The client's program name, as the package installs it. */
const CLIENT_NAME = 'hub-request';

type HelperSettings = {
  recovery: Pick<Settings['recovery'], 'powerCycle' | 'powerCycleCommand'>;
  charge: { ways: readonly string[] };
  hubPorts: readonly string[];
};

/** The helper's socket when the settings switch ports through it, else undefined. */
function helperSocketOf(settings: HelperSettings) {
  const words = settings.recovery.powerCycleCommand.split(/\s+/).filter(Boolean);
  const used = settings.recovery.powerCycle || chargeWaysOf(settings.charge.ways).some((w) => w.way === 'uhubctl');
  if (!used || basename(words[0] ?? '') !== CLIENT_NAME) return undefined;
  return optionOf(words, '--socket') || HUB_SOCKET;
}

export async function hubHelperItems(settings: HelperSettings): Promise<CheckResult[]> {
  const socket = helperSocketOf(settings);
  if (!socket) return [];
  const hubs = [...new Set([...hubPortsOf(settings.hubPorts).values()].map((p) => p.hub))];
  try {
    const { problem, output } = await ask({ kind: 'check' }, socket, 10_000);
    const seen = output.trim().split('\n').filter(Boolean).join('; ');
    if (problem === undefined) return [{ status: 'ok', finding: `hub helper (${socket}): ${seen}` }];
    return [
      {
        status: 'fail',
        finding: `hub helper (${socket}): ${problem}${seen ? ` (${seen})` : ''}`,
        advice:
          `install uhubctl where the helper finds it (apt install uhubctl) and check that the hubs of hubPorts (${hubs.join(', ') || 'none set'}) are on this host; ` +
          'until then no hub port is switched',
      },
    ];
  } catch (error) {
    return [
      {
        status: 'fail',
        finding: `hub helper: ${(error as Error).message}`,
        advice:
          socket === HUB_SOCKET
            ? 'systemctl enable --now device-agent-hub.socket (the package installs it); until then no hub port is switched'
            : `start the hub helper that listens on ${socket} (in a container: the hub service, ${docPath('docs/install/container.md')} "Hub ports"); until then no hub port is switched`,
      },
    ];
  }
}
