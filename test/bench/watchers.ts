// `npm run bench`'s status page case: a daemon of N phones (60 by default) on its 60 s schedule, its CPU over a window
// with no page open, then over a window with ten clients watching the rack as the page does (every POLL_MS, with the
// ETag of the body they hold: src/status/page/rack.ts). HTTP clients stand in for the browsers: ten real browsers
// beside 60 simulated phones would measure the machine's load, not the daemon's, and the daemon sees the same
// questions. Each window is taken again (three times at most) when a report fell in it.
import { spawn } from 'node:child_process';
import { POLL_MS } from '../../src/status/page/rack.js';
import type { CloudDouble } from '../cloud-double/cloud-double.js';
import { AgentProcess, baseEnv } from '../e2e/agent-process.js';
import { SimFarm } from '../sim/farm.js';
import type { Profile } from '../sim/profile.js';
import { sleep } from '../support/wait.js';
import { procSample } from './measure.js';

export interface WatchResult {
  n: number;
  watchers: number;
  seconds: number;
  idleCpuSeconds: number;
  watchedCpuSeconds: number;
  questions: number;
  notModified: number;
  bodyBytes: number;
}

const WINDOW_MS = 20_000;

export async function benchWatchers(n: number, profile: Profile, cloud: CloudDouble, bin: string, watchers = 10): Promise<WatchResult> {
  const farm = new SimFarm({ count: n, profile, serialPrefix: 'WATCHx', readyTimeoutMs: 180_000 });
  await farm.start();
  const env = baseEnv({
    ...farm.env,
    DEVICE_AGENT_BASE_URL: cloud.url,
    DEVICE_AGENT_USERNAME: cloud.username,
    DEVICE_AGENT_API_KEY: cloud.apiKey,
    DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0',
    DEVICE_AGENT_LOG_LEVEL: 'debug',
  });
  const agent = new AgentProcess(spawn(process.execPath, [bin, 'run'], { env, stdio: ['ignore', 'pipe', 'pipe'] }));
  const delivered = () => agent.logs().filter((l) => l.msg === 'report delivered' && l.ms !== undefined).length;
  try {
    const listen = String((await agent.waitForLog((l) => l.msg === 'status endpoint listening (/healthz, /metrics)', 60_000)).listen);
    await agent.waitForLog((l) => l.msg === 'report delivered', 240_000);
    const url = `http://${listen}/api/devices`;
    /** CPU seconds of the daemon over a window with no report in it, while `during` runs. */
    const window = async (during: (until: number) => Promise<void>): Promise<number> => {
      let cpu = NaN;
      for (let attempt = 0; attempt < 3; attempt++) {
        const reports = delivered();
        const a = procSample(agent.child.pid!);
        await during(performance.now() + WINDOW_MS);
        cpu = procSample(agent.child.pid!).cpuSeconds - a.cpuSeconds;
        if (delivered() === reports) break;
      }
      return cpu;
    };
    const idleCpuSeconds = await window((until) => sleep(until - performance.now()));
    let questions = 0;
    let notModified = 0;
    let bodyBytes = 0;
    const watch = async (until: number, phase: number): Promise<void> => {
      await sleep(phase);
      let etag: string | undefined;
      while (performance.now() < until) {
        const started = performance.now();
        const res = await fetch(url, { headers: { 'accept-encoding': 'gzip', ...(etag && { 'if-none-match': etag }) } });
        const body = await res.arrayBuffer();
        questions++;
        if (res.status === 304) notModified++;
        else {
          etag = res.headers.get('etag') ?? undefined;
          // As sent (fetch hands the body on unzipped).
          bodyBytes = Number(res.headers.get('content-length') ?? body.byteLength);
        }
        await sleep(Math.max(0, POLL_MS - (performance.now() - started)));
      }
    };
    const watchedCpuSeconds = await window(async (until) => {
      [questions, notModified] = [0, 0];
      await Promise.all(Array.from({ length: watchers }, (_, i) => watch(until, (i * POLL_MS) / watchers)));
    });
    return { n, watchers, seconds: WINDOW_MS / 1000, idleCpuSeconds, watchedCpuSeconds, questions, notModified, bodyBytes };
  } finally {
    await agent.stop('SIGTERM', 15_000).catch(() => agent.stop('SIGKILL'));
    await farm.stop();
  }
}

export function printWatchers(w: WatchResult): void {
  const pct = (cpu: number) => `${((cpu / w.seconds) * 100).toFixed(2)} % of a core`;
  console.log(
    `status page watched (${w.n} phones, ${w.watchers} clients asking every ${POLL_MS} ms with the ETag they hold, ${w.seconds} s windows): ` +
      `no page ${pct(w.idleCpuSeconds)}, watched ${pct(w.watchedCpuSeconds)}, the watching ${pct(w.watchedCpuSeconds - w.idleCpuSeconds)}; ` +
      `${w.questions} questions, ${w.notModified} answered 304, the rack's data ${w.bodyBytes} bytes gzipped`,
  );
}
