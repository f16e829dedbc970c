// The hub helper, one connection per process: device-agent-hub@.service,
// started by device-agent-hub.socket (Accept=yes) with the connection as
// standard input and output. It reads one request line, refuses a port the
// operator did not map, and runs `uhubctl -l HUB -p PORT -a ACTION` (from
// its PATH) under a deadline; `check` says whether uhubctl is there, each
// mapped hub's device node opens, and uhubctl's status listing of each
// mapped hub shows it and its mapped ports, from inside the helper's sandbox.
//   node dist/src/hub-helper/serve.js [--peer N-PID-UID] [--config-if-present PATH] [--usb-sysfs DIR] [--usb-devfs DIR]
// --peer: the socket unit's instance name (%i), whose last part is the
// peer's uid: only root and the agent's user (AGENT_USER) are answered.
// (the last two move /sys/bus/usb/devices and /dev/bus/usb for `check`: a
// test's tree; uhubctl itself is not told).
// It reads hubPorts as the agent does: config/default.json, the file when it
// exists, then DEVICE_AGENT_* variables (the unit's EnvironmentFile).

import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, openSync, constants, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { hubPortsOf, type HubPort } from '../config/hub-ports.js';
import { loadConfig } from '../config/load.js';
import { locate } from '../hub/tool-doctor.js';
import { hubListings, runTool } from '../hub/uhubctl.js';
import { answerHead, MAX_REQUEST_BYTES, optionOf, parseRequest, refusal, type HubRequest } from './request.js';

const READ_TIMEOUT_MS = 5_000;
/** Under the client's 30 s: a cycle is off, uhubctl's 2 s delay, on. */
const TOOL_TIMEOUT_MS = 25_000;
const SYSFS = '/sys/bus/usb/devices';
const DEVFS = '/dev/bus/usb';

/** The user the agent runs as (DynamicUser=yes: its uid changes, its name does not). */
const AGENT_USER = 'device-agent';

/** Undefined when the peer of the instance name N-PID-UID may ask, else why not. */
export function peerRefusal(instance: string, nameOf: (uid: number) => string | undefined) {
  const m = /^\d+-\d+-(\d+)$/.exec(instance);
  if (!m) return `no peer credentials in the instance name ${JSON.stringify(instance)}`;
  const uid = Number(m[1]);
  if (uid === 0) return undefined;
  const name = nameOf(uid);
  return name === AGENT_USER ? undefined : `refused this user (uid ${uid}${name ? `, ${name}` : ''}): only root and ${AGENT_USER} may ask`;
}

/** A uid's name through NSS (nss-systemd knows the dynamic users). */
function userName(uid: number) {
  try {
    return execFileSync('getent', ['passwd', String(uid)], { encoding: 'utf8', timeout: 5_000 }).split(':')[0] || undefined;
  } catch {
    return undefined;
  }
}

/** One line from the stream, at most MAX_REQUEST_BYTES, within the deadline. */
function readLine(input: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const done = (error?: Error) => {
      clearTimeout(timer);
      input.removeAllListeners('data');
      input.removeAllListeners('end');
      if (error) reject(error);
      else resolve(text.slice(0, text.indexOf('\n') + 1 || text.length));
    };
    const timer = setTimeout(() => done(new Error(`no request line within ${READ_TIMEOUT_MS / 1000} s`)), READ_TIMEOUT_MS);
    input.on('data', (chunk: Buffer | string) => {
      text += chunk.toString();
      if (text.includes('\n')) done();
      else if (text.length > MAX_REQUEST_BYTES) done(new Error(`a request longer than ${MAX_REQUEST_BYTES} bytes`));
    });
    input.on('end', () => done());
    input.on('error', (error: Error) => done(error));
  });
}

/** Where a hub's device node is, from sysfs as libusb finds it, and whether it opens. */
function hubNodeFinding(hub: string, sysfs = SYSFS, devfs = DEVFS) {
  let node: string;
  try {
    const read = (name: string) => Number(readFileSync(join(sysfs, hub, name), 'utf8').trim());
    node = join(devfs, String(read('busnum')).padStart(3, '0'), String(read('devnum')).padStart(3, '0'));
  } catch {
    return { ok: false, finding: `hub ${hub}: no ${join(sysfs, hub)} (no USB device at that place on this host)` };
  }
  try {
    closeSync(openSync(node, constants.O_RDWR));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A character node whose open reached the kernel: the device policy let it through.
    const reached = (code === 'ENODEV' || code === 'ENXIO') && statSync(node, { throwIfNoEntry: false })?.isCharacterDevice();
    if (!reached) return { ok: false, finding: `hub ${hub}: ${node} does not open (${code})` };
  }
  return { ok: true, finding: `hub ${hub}: ${node} opens` };
}

/** The answer to one request: the problem (undefined when done) and the output. */
async function answer(request: HubRequest, mapped: readonly HubPort[], env: NodeJS.ProcessEnv, roots: { sysfs?: string; devfs?: string }) {
  if (request.kind === 'check') {
    const tool = locate('uhubctl', env.PATH);
    const hubs = [...new Set(mapped.map((p) => p.hub))].map((hub) => hubNodeFinding(hub, roots.sysfs, roots.devfs));
    // uhubctl's own status listing of each mapped hub: a tool that runs but sees no hub there switches nothing.
    const listings =
      'found' in tool
        ? (await hubListings(['uhubctl'], mapped, TOOL_TIMEOUT_MS)).map(({ hub, ports, problem }) =>
            problem ? { ok: false, finding: problem } : { ok: true, finding: `hub ${hub}: uhubctl lists port ${ports.join(', ')}` },
          )
        : [];
    const found = [...hubs, ...listings];
    const lines = [`uhubctl: ${'found' in tool ? tool.found : tool.missing}`, ...found.map((h) => h.finding)];
    const problem = 'found' in tool ? found.find((h) => !h.ok)?.finding : `${tool.missing} (apt install uhubctl)`;
    return { ...(problem !== undefined && { problem }), output: lines.join('\n') };
  }
  const refused = refusal(request, mapped);
  if (refused) return { problem: refused, output: '' };
  try {
    return { output: await runTool(['uhubctl', '-l', request.hub, '-p', String(request.port), '-a', request.action], TOOL_TIMEOUT_MS) };
  } catch (error) {
    return { problem: (error as Error).message, output: '' };
  }
}

async function main() {
  const option = (name: string) => optionOf(process.argv, name);
  const configPath = option('--config-if-present');

  const write = (text: string): Promise<void> => new Promise((resolve) => process.stdout.write(text, () => resolve()));
  const refuse = async (problem: string, said = problem) => {
    process.stderr.write(`device-agent-hub: ${said}\n`);
    await write(answerHead(problem));
    return 1;
  };
  let line: string;
  try {
    line = await readLine(process.stdin);
  } catch (error) {
    await write(answerHead((error as Error).message));
    return 1;
  }
  // Checked once the line is read: a peer whose line is left unread gets a reset instead of the answer.
  const peer = option('--peer');
  const refused = peer === undefined ? undefined : peerRefusal(peer, userName);
  if (refused) return refuse(refused);
  const request = parseRequest(line);
  if ('problem' in request) return refuse(request.problem, `refused: ${request.problem}`);
  let mapped: HubPort[];
  try {
    const { settings } = loadConfig({ ...(configPath && existsSync(configPath) && { configPath }), env: process.env });
    mapped = [...hubPortsOf(settings.hubPorts).values()];
  } catch (error) {
    return refuse(`the helper cannot read the settings: ${(error as Error).message}`);
  }
  const { problem, output } = await answer(request, mapped, process.env, { sysfs: option('--usb-sysfs'), devfs: option('--usb-devfs') });
  // One line in the journal per request: what was asked and how it ended.
  const asked = request.kind === 'check' ? 'check' : `${request.action} hub ${request.hub} port ${request.port}`;
  process.stderr.write(`device-agent-hub: ${asked}: ${problem === undefined ? 'done' : `failed: ${problem}`}\n`);
  await write(answerHead(problem) + (output ? `${output}\n` : ''));
  return problem === undefined ? 0 : 1;
}

if (process.argv[1]?.endsWith('serve.js')) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`device-agent-hub: ${String(error)}\n`);
      process.exit(1);
    },
  );
}
