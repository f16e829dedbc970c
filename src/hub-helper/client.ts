// The agent's side of the hub helper: a command that takes uhubctl's
// arguments (`-l HUB -p PORT -a off|on|cycle`), so that it goes where
// uhubctl would (recovery.powerCycleCommand; the package's default), asks
// the helper over its socket, prints the helper's (uhubctl's) output and
// exits 0 when the port was switched, 1 when not (the reason on stderr).
// `--check` asks the helper what doctor shows.
//   node dist/src/hub-helper/client.js [--socket PATH] -l HUB -p PORT -a ACTION
// Deadline: 28 s, under the agent's 30 s for a hub tool.

import { connect } from 'node:net';
import { optionOf, parseAnswer, requestLine, type HubAction, type HubRequest } from './request.js';

export const HUB_SOCKET = '/run/device-agent-hub.sock';
const TIMEOUT_MS = 28_000;
const ACTIONS: Record<string, HubAction> = { off: 'off', on: 'on', cycle: 'cycle', 0: 'off', 1: 'on', 2: 'cycle' };

/** Sends one request and resolves with the helper's answer; rejects when the helper cannot be asked. */
export function ask(request: HubRequest, socket = HUB_SOCKET, timeoutMs = TIMEOUT_MS): Promise<{ problem: string | undefined; output: string }> {
  return new Promise((resolve, reject) => {
    let text = '';
    const conn = connect(socket);
    const timer = setTimeout(() => {
      conn.destroy();
      reject(new Error(`the hub helper (${socket}) gave no answer within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    conn.on('connect', () => conn.write(requestLine(request)));
    conn.on('data', (chunk: Buffer) => (text += chunk.toString()));
    conn.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      // The helper answered and closed before reading all we sent: its answer stands.
      if (error.code === 'ECONNRESET' && text) return resolve(parseAnswer(text));
      const why = error.code === 'ENOENT' || error.code === 'ECONNREFUSED' ? 'is not there: is device-agent-hub.socket enabled and started?' : error.message;
      reject(new Error(`the hub helper's socket ${socket} ${why}`));
    });
    conn.on('end', () => {
      clearTimeout(timer);
      resolve(parseAnswer(text));
    });
  });
}

/** The request uhubctl's arguments ask for, or what is wrong with them. */
function requestOf(argv: readonly string[]): HubRequest | { problem: string } {
  if (argv.includes('--check')) return { kind: 'check' };
  const hub = optionOf(argv, '-l', '--location');
  const port = Number(optionOf(argv, '-p', '--ports'));
  const action = ACTIONS[optionOf(argv, '-a', '--action') ?? ''];
  if (!hub || !Number.isInteger(port) || !action) return { problem: 'usage: -l HUB -p PORT -a off|on|cycle, or --check' };
  return { kind: 'switch', action, hub, port };
}

async function main(argv: string[]): Promise<number> {
  const request = requestOf(argv);
  if ('problem' in request) {
    process.stderr.write(`hub-request: ${request.problem}\n`);
    return 2;
  }
  try {
    const { problem, output } = await ask(request, optionOf(argv, '--socket'));
    if (output) process.stdout.write(output);
    if (problem !== undefined) process.stderr.write(`hub-request: ${problem}\n`);
    return problem === undefined ? 0 : 1;
  } catch (error) {
    process.stderr.write(`hub-request: ${(error as Error).message}\n`);
    return 1;
  }
}

if (process.argv[1]?.endsWith('client.js')) {
  void main(process.argv.slice(2)).then((code) => process.exit(code));
}
