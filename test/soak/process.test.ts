import { describe, expect, it } from 'vitest';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, procSample, scrapeMetrics, type ProcSample } from '../bench/measure.js';
import { shippedNodeOptions } from '../bench/shipped.js';
import { CloudDouble } from '../cloud-double/cloud-double.js';
import { SimFarm } from '../sim/farm.js';
import { agentOnFarm } from '../support/farm-agent.js';
import { sleep } from '../support/wait.js';

// The daemon as operators run it (the unit's V8 flags included), in its own
// process, reporting every second and on every device change while devices
// flap, watched from outside through /proc. Descriptors and sockets must stay
// flat; resident memory must stay under a ceiling. Whether RSS levels off
// takes longer than CI should spend: SOAK_PROCESS_MS=240000 runs four minutes
// (about 1,400 reports). Measured with --max-semi-space-size=1, RSS held at
// 144-145 MiB from the second minute on with the heap between 18 and 22 MiB;
// with Node's defaults it held at 206-212 MiB (README, Performance, Soak).

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DURATION_MS = Number(process.env.SOAK_PROCESS_MS ?? 60_000);
const RSS_CEILING = 192 * 2 ** 20;
const FD_BOUND = 2;
// One report of 4 devices: their shell sessions, the adb list and the HTTP request.
const IN_FLIGHT_BOUND = 12;

const farm = new SimFarm({ count: 4, profile: 'pixel-8-pro', serialPrefix: 'PSOAK' });
const cloud = new CloudDouble();
const run = agentOnFarm(farm, cloud, {
  DEVICE_AGENT_SCHEDULE: '* * * * * *',
  DEVICE_AGENT_CHANGE_DEBOUNCE_MS: '0',
  DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0',
  // As shipped (the unit's V8 flags); SOAK_AGENT_NODE_OPTIONS to compare others, 'none' for Node's defaults.
  NODE_OPTIONS: process.env.SOAK_AGENT_NODE_OPTIONS === 'none' ? undefined : (process.env.SOAK_AGENT_NODE_OPTIONS ?? shippedNodeOptions(root)),
});

describe('soak: the agent process', () => {
  it(
    'reporting every second with flapping devices: descriptors and sockets flat, RSS under the ceiling',
    async () => {
      const { agent, statusUrl } = run;
      await cloud.waitForPut((r) => r.answer?.status === 200, 30_000);
      let on = true;
      let flaps = 0;
      const flapper = (async () => {
        for (let i = 0; on; i++, flaps++) {
          farm.devices[i % farm.devices.length]!.disconnect();
          await sleep(200);
        }
      })();
      const samples: ProcSample[] = [];
      const heaps: number[] = [];
      let puts = 0;
      const started = Date.now();
      // Skip the first quarter: V8 and malloc grow to their working size first.
      await sleep(DURATION_MS / 4);
      while (Date.now() - started < DURATION_MS) {
        samples.push(procSample(agent.child.pid!));
        heaps.push((await scrapeMetrics(statusUrl)).get('nodejs_heap_size_used_bytes') ?? NaN);
        // Its own log lines pile up in this process, not in the agent: keep only the recent ones.
        agent.stdout = agent.stdout.slice(-100_000);
        // The double keeps every request: count them and let them go.
        puts += cloud.putRequests().length;
        cloud.clearRequests();
        await sleep(DURATION_MS / 16);
      }
      on = false;
      await flapper;
      console.log(
        `process soak: ${((Date.now() - started) / 1000).toFixed(0)} s, ${flaps} flaps, ${puts} reports; ` +
          `RSS ${samples.map((s) => (s.rssBytes / 2 ** 20).toFixed(1)).join(' ')} MiB; heap ${heaps.map((h) => (h / 2 ** 20).toFixed(1)).join(' ')} MiB; fds ${samples.map((s) => s.fds).join(' ')}; sockets ${samples.map((s) => s.sockets).join(' ')}`,
      );
      expect(agent.child.exitCode).toBeNull();
      expect(puts).toBeGreaterThan(DURATION_MS / 1000 / 2);
      expect(Math.max(...samples.map((s) => s.rssBytes))).toBeLessThan(RSS_CEILING);
      // A sample can land in the middle of a report, with shell sessions and the
      // HTTP request open: compare the typical (median) count of the first and
      // last third, and bound the peak by what one report may hold open.
      const third = Math.max(1, Math.floor(samples.length / 3));
      const typical = (pick: (s: ProcSample) => number, part: ProcSample[]) => median(part.map(pick));
      const early = samples.slice(0, third);
      const late = samples.slice(-third);
      expect(typical((s) => s.fds, late) - typical((s) => s.fds, early)).toBeLessThanOrEqual(FD_BOUND);
      expect(typical((s) => s.sockets, late) - typical((s) => s.sockets, early)).toBeLessThanOrEqual(FD_BOUND);
      expect(Math.max(...samples.map((s) => s.fds)) - typical((s) => s.fds, early)).toBeLessThanOrEqual(IN_FLIGHT_BOUND);
    },
    DURATION_MS + 60_000,
  );
});
