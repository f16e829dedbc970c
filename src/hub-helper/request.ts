// The hub helper's requests (device-agent-hub.socket): one line per connection, `off|on|cycle HUB PORT` or `check`,
// parsed and authorized here, pure. Only a port the operator mapped in hubPorts may be switched: the helper runs with
// the right to switch every port of every hub, the agent asking it only with the right to connect.

import type { HubPort } from '../config/hub-ports.js';

export type HubAction = 'off' | 'on' | 'cycle';

export type HubRequest = { kind: 'switch'; action: HubAction; hub: string; port: number } | { kind: 'check' };

/** A request line is short: anything longer is not one. */
export const MAX_REQUEST_BYTES = 256;

const SWITCH = /^(off|on|cycle) (\d+(?:-\d+(?:\.\d+)*)?) (\d{1,3})$/;

/** The request of one line, or what is wrong with it. */
export function parseRequest(line: string): HubRequest | { problem: string } {
  const text = line.replace(/\r?\n$/, '');
  if (text === 'check') return { kind: 'check' };
  const m = SWITCH.exec(text);
  const port = Number(m?.[3]);
  if (!m || port < 1 || port > 255) return { problem: `not a request: ${JSON.stringify(text.slice(0, 80))} (off|on|cycle HUB PORT, or check)` };
  return { kind: 'switch', action: m[1] as HubAction, hub: m[2]!, port };
}

/** Undefined when the port is one the operator mapped, else why it is refused. */
export function refusal(request: { hub: string; port: number }, mapped: Iterable<HubPort>) {
  for (const place of mapped) if (place.hub === request.hub && place.port === request.port) return undefined;
  return `hub ${request.hub} port ${request.port} is not in hubPorts: the helper switches only the ports mapped to a phone`;
}

/** The value after the first of these options in a command line. */
export function optionOf(argv: readonly string[], ...names: string[]) {
  const at = argv.findIndex((a) => names.includes(a));
  return at >= 0 ? argv[at + 1] : undefined;
}

/** The request line the client sends. */
export function requestLine(request: HubRequest) {
  return request.kind === 'check' ? 'check\n' : `${request.action} ${request.hub} ${request.port}\n`;
}

/** The first line of an answer: `ok`, or `fail WHY`. */
export function answerHead(problem: string | undefined) {
  return problem === undefined ? 'ok\n' : `fail ${problem.replace(/\s+/g, ' ')}\n`;
}

/** An answer as the client reads it: the problem (undefined when ok) and the lines after the first. */
export function parseAnswer(text: string): { problem: string | undefined; output: string } {
  const [head = '', ...rest] = text.split('\n');
  const output = rest.join('\n');
  if (head === 'ok') return { problem: undefined, output };
  if (head.startsWith('fail ')) return { problem: head.slice(5), output };
  return { problem: `the hub helper answered ${JSON.stringify(head.slice(0, 80))}`, output };
}
