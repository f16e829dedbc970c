// Runs a SimFarm in its own process, so a benchmark can keep the simulator's
// CPU apart from the agent's:
//   node dist/test/sim/farm-cli.js --count 200 [--profile pixel-8-pro]
// prints one JSON line {"port", "env", "serials", "serialNumbers"} once every
// device is listed, and stops everything on SIGTERM, SIGINT or stdin EOF.
import { parseArgs } from 'node:util';
import { SimFarm } from './farm.js';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '1' },
    profile: { type: 'string', default: 'pixel-8-pro' },
    'serial-prefix': { type: 'string', default: 'SIM' },
    'delay-ms': { type: 'string', default: '0' },
  },
});

const count = Number(values.count);
const delayMs = Number(values['delay-ms']);
const farm = new SimFarm({
  count,
  profile: values.profile,
  serialPrefix: values['serial-prefix'],
  devices: delayMs > 0 ? Array.from({ length: count }, () => ({ delayMs })) : undefined,
});

let stopping = false;
async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  await farm.stop().catch(() => undefined);
  process.exit(code);
}

process.on('SIGTERM', () => void shutdown(0));
process.on('SIGINT', () => void shutdown(0));
process.stdin.on('end', () => void shutdown(0));
process.stdin.resume();

try {
  await farm.start();
  process.stdout.write(`${JSON.stringify({ port: farm.port, env: farm.env, serials: farm.serials, serialNumbers: farm.serialNumbers })}\n`);
} catch (error) {
  process.stderr.write(`farm did not start: ${(error as Error).message}\n`);
  await shutdown(1);
}
