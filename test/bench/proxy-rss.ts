// RSS of `device-agent run` (no phones) at its first delivered report, for
// each way to the cloud: direct with Node's roots only, with caFile, with the
// system bundle too (the default), through squid with the agent's CONNECT
// tunnel, and the same with NODE_USE_ENV_PROXY=1 (Node's own proxy switch,
// which loads its bundled undici at start). Rounds interleave the cases, so a
// machine that slows down weighs on all alike. docs/install/proxy.md.
// Run: npm run bench:proxy (PROXY_BENCH_ROUNDS, default 5)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CloudDouble } from '../cloud-double/cloud-double.js';
import { privateCa } from '../proxies/private-ca.js';
import { Squid } from '../proxies/squid.js';
import { AdbServer } from '../sim/adb-server.js';
import { median } from './measure.js';
import { shippedNodeFlags } from './shipped.js';

const root = resolve(fileURLToPath(import.meta.url), '../../../..');
const bin = join(root, 'bin/device-agent.js');
const NAME = 'cloud.lab.test';

interface Sample {
  rssMb: number;
  cpuS: number;
}

/** Starts the daemon, waits for its first delivered report, reads /proc, stops it. */
function sample(env: Record<string, string>): Promise<Sample> {
  return new Promise((resolveSample, reject) => {
    const child = spawn(process.execPath, ['--max-semi-space-size=1', ...shippedNodeFlags(root), bin, 'run'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let seen = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no report within 30 s:\n${out}`));
    }, 30_000);
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      if (seen || !out.includes('"msg":"report delivered"')) return;
      seen = true;
      // A second to settle after the report, as the bench's agent rounds do.
      setTimeout(() => {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        const result = { rssMb: Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024, cpuS: (Number(stat[11]) + Number(stat[12])) / 100 };
        clearTimeout(timer);
        child.once('exit', () => resolveSample(result));
        child.kill('SIGTERM');
      }, 1000);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
  });
}

async function main(): Promise<void> {
  const rounds = Number(process.env.PROXY_BENCH_ROUNDS ?? 5);
  const ca = privateCa('Device Agent Test Root CA');
  const dir = mkdtempSync(join(tmpdir(), 'da-proxy-bench-'));
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, ca.caCert);
  const account = { user: 'bench', password: 'p@ss:w/rd' };
  const behindProxy = new CloudDouble({ tls: { key: ca.serverKey, cert: ca.serverCert }, urlHost: NAME });
  const direct = new CloudDouble({ tls: { key: ca.serverKey, cert: ca.serverCert } });
  const squid = new Squid({ auth: account, hosts: { [NAME]: '127.0.0.1' } });
  const adb = new AdbServer();
  await Promise.all([behindProxy.start(), direct.start(), squid.start(), adb.start()]);
  const base = (extra: Record<string, string>): Record<string, string> => {
    const home = mkdtempSync(join(tmpdir(), 'da-proxy-bench-home-'));
    return {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      DEVICE_AGENT_STATE_DIR: join(home, 'state'),
      DEVICE_AGENT_LOG_FORMAT: 'json',
      ...adb.env,
      DEVICE_AGENT_USERNAME: direct.username,
      DEVICE_AGENT_API_KEY: direct.apiKey,
      DEVICE_AGENT_JITTER_SECONDS: '0',
      DEVICE_AGENT_SCHEDULE: '0 0 1 1 *',
      DEVICE_AGENT_STATUS_LISTEN: 'off',
      ...extra,
    };
  };
  const cases: Record<string, () => Record<string, string>> = {
    "direct, Node's roots only": () => base({ DEVICE_AGENT_BASE_URL: direct.url, DEVICE_AGENT_SYSTEM_CA: 'false', NODE_EXTRA_CA_CERTS: caFile }),
    'direct, caFile': () => base({ DEVICE_AGENT_BASE_URL: direct.url, DEVICE_AGENT_SYSTEM_CA: 'false', DEVICE_AGENT_CA_FILE: caFile }),
    'direct, caFile and system bundle': () => base({ DEVICE_AGENT_BASE_URL: direct.url, DEVICE_AGENT_CA_FILE: caFile }),
    'squid, the agent tunnel': () =>
      base({ DEVICE_AGENT_BASE_URL: behindProxy.url, HTTPS_PROXY: squid.url(account), DEVICE_AGENT_SYSTEM_CA: 'false', DEVICE_AGENT_CA_FILE: caFile }),
    'squid, tunnel + NODE_USE_ENV_PROXY=1': () =>
      base({
        DEVICE_AGENT_BASE_URL: behindProxy.url,
        HTTPS_PROXY: squid.url(account),
        DEVICE_AGENT_SYSTEM_CA: 'false',
        DEVICE_AGENT_CA_FILE: caFile,
        NODE_USE_ENV_PROXY: '1',
      }),
  };
  const results = new Map<string, Sample[]>(Object.keys(cases).map((k) => [k, []]));
  try {
    for (let round = 0; round < rounds; round++) {
      for (const [name, env] of Object.entries(cases)) results.get(name)!.push(await sample(env()));
    }
  } finally {
    await Promise.all([behindProxy.stop(), direct.stop(), squid.stop(), adb.stop()]);
  }
  console.log(`Node ${process.version}, ${rounds} rounds, RSS and CPU of device-agent run at its first report (medians, min-max)`);
  for (const [name, list] of results) {
    const rss = list.map((s) => s.rssMb);
    const cpu = list.map((s) => s.cpuS);
    console.log(
      `${name.padEnd(38)} RSS ${median(rss).toFixed(1)} MB (${Math.min(...rss).toFixed(1)}-${Math.max(...rss).toFixed(1)})  CPU ${median(cpu).toFixed(2)} s`,
    );
  }
}

await main();
