// The floor of a full inventory on this machine: the agent's own inventory
// script sent straight through adbkit, one shell session per device, every
// device at once, nothing else. It runs in its own process, as the agent
// does, so both compete with the simulator for the CPU in the same way.
//
// Input (JSON on argv[2]): { port, serials, script, rounds }.
// Output (JSON on stdout): { rounds: [{ ms, bytes }], cpuSeconds, rssBytes }.
import adbkit from '@devicefarmer/adbkit';
import type { Duplex } from 'node:stream';

export interface FloorInput {
  port: number;
  serials: string[];
  script: string;
  rounds: number;
}

export interface FloorRound {
  ms: number;
  bytes: number;
  failures: number;
}

export interface FloorOutput {
  rounds: FloorRound[];
  cpuSeconds: number;
  rssBytes: number;
}

function readToEnd(stream: Duplex): Promise<number> {
  return new Promise((resolve, reject) => {
    let bytes = 0;
    stream.on('data', (chunk: Buffer) => (bytes += chunk.length));
    stream.once('end', () => resolve(bytes));
    stream.once('error', reject);
  });
}

async function round(input: FloorInput): Promise<FloorRound> {
  const client = adbkit.Adb.createClient({ host: '127.0.0.1', port: input.port, bin: 'false' });
  const started = performance.now();
  let failures = 0;
  const sizes = await Promise.all(
    input.serials.map(async (serial) => {
      try {
        const stream = (await client.getDevice(serial).shell(input.script)) as Duplex;
        return await readToEnd(stream);
      } catch {
        failures++;
        return 0;
      }
    }),
  );
  return { ms: performance.now() - started, bytes: sizes.reduce((a, b) => a + b, 0), failures };
}

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2] ?? '{}') as FloorInput;
  const rounds: FloorRound[] = [];
  for (let i = 0; i < input.rounds; i++) rounds.push(await round(input));
  const usage = process.resourceUsage();
  const output: FloorOutput = {
    rounds,
    cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6,
    rssBytes: usage.maxRSS * 1024,
  };
  process.stdout.write(JSON.stringify(output) + '\n');
}

await main();
