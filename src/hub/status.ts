// What a hub tool's own answers say, read without I/O: uhubctl's status
// listing of a location (`uhubctl -l HUB`: `Current status for hub HUB
// [...]`, then `  Port N: ...` lines; `No compatible devices detected at
// location HUB!` when nothing matches), and which failures of a switch no
// retry can fix (the tool finds no hub there, may not open it, or is not
// there at all): those wait for a change of the settings or the hardware.

import type { HubPort } from '../config/hub-ports.js';

/** The hubs a status listing shows, each with the ports it lists. */
export function parseHubStatus(output: string) {
  const hubs = new Map<string, Set<number>>();
  let ports: Set<number> | undefined;
  for (const line of output.split('\n')) {
    const hub = /^(?:Current|New) status for hub (\S+)/.exec(line);
    if (hub) {
      ports = hubs.get(hub[1]!) ?? new Set();
      hubs.set(hub[1]!, ports);
      continue;
    }
    const port = /^\s+Port (\d+):/.exec(line);
    if (port && ports) ports.add(Number(port[1]));
  }
  return hubs;
}

/** What is wrong with one hub's status listing for the ports mapped on it (undefined: the hub and each port are there). */
export function hubStatusProblem(hub: string, ports: readonly number[], output: string) {
  const listed = parseHubStatus(output).get(hub);
  if (!listed) {
    const said = output.trim().split('\n')[0]!.trim();
    return `hub ${hub} is not found by the hub tool${said ? ` (it says: ${said})` : ''}`;
  }
  const missing = ports.filter((p) => !listed.has(p));
  if (missing.length > 0) return `hub ${hub} has no port ${missing.join(', ')} (it lists ${[...listed].join(', ') || 'none'})`;
  return undefined;
}

/** The mapped ports by hub. */
export function portsByHub(mapped: Iterable<HubPort>) {
  const byHub = new Map<string, number[]>();
  for (const { hub, port } of mapped)
    byHub.set(
      hub,
      [...(byHub.get(hub) ?? []), port].sort((a, b) => a - b),
    );
  return byHub;
}

const LASTING: ReadonlyArray<[RegExp, string]> = [
  [/No compatible devices detected/i, 'the hub tool finds no hub at that location'],
  [/not in hubPorts/, 'the hub helper refuses a port that is not mapped in hubPorts'],
  [/permission problems|permission denied|EACCES|EPERM/i, 'the hub tool is denied access to the hub'],
  [/ENOENT|command not found|not on PATH|no hub port command is set|does not exist/i, 'the hub tool is not there'],
];

/** Why a hub tool's failure is one no retry can fix, or undefined when it may be passing (a deadline missed, a hub busy). */
export function lastingFailure(text: string) {
  return LASTING.find(([pattern]) => pattern.test(text))?.[1];
}
