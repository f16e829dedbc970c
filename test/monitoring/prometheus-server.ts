import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../sim/adb-server.js';
import { systemTool } from '../support/system-tool.js';

// A real Prometheus server (Debian's `prometheus` package) on loopback, with
// its own configuration and data in a temporary folder, read through its
// HTTP API. One per test file; stop() at the end.

export interface PrometheusOptions {
  /** HOST:PORT of each device-agent to scrape, as job "device-agent". */
  targets: string[];
  /** Rule files to load: absolute paths. */
  ruleFiles: string[];
  /** Scrape and rule evaluation interval; short, so that a test sees alerts in seconds. */
  intervalSeconds?: number;
}

export interface Alert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: 'pending' | 'firing';
  value: string;
}

export interface Rule {
  name: string;
  query: string;
  type: 'alerting' | 'recording';
  health: string;
  lastError?: string;
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
}

export interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

export class PrometheusServer {
  private child: ChildProcess | undefined;
  private readonly dir = mkdtempSync(join(tmpdir(), 'da-prom-'));
  private output = '';
  url = '';

  async start(options: PrometheusOptions): Promise<void> {
    const interval = `${options.intervalSeconds ?? 1}s`;
    // JSON is YAML: no YAML writer needed for the configuration.
    const config = {
      global: { scrape_interval: interval, scrape_timeout: interval, evaluation_interval: interval },
      rule_files: options.ruleFiles,
      scrape_configs: [{ job_name: 'device-agent', static_configs: [{ targets: options.targets }] }],
    };
    const configFile = join(this.dir, 'prometheus.yml');
    writeFileSync(configFile, JSON.stringify(config, null, 2));
    const port = await freePort();
    this.url = `http://127.0.0.1:${port}`;
    const child = spawn(
      systemTool(process.env.PROMETHEUS_BIN ?? 'prometheus'),
      [`--config.file=${configFile}`, `--storage.tsdb.path=${join(this.dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child = child;
    child.stdout?.on('data', (c: Buffer) => (this.output += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (this.output += c.toString()));
    const spawnError = new Promise<never>((_, reject) => child.once('error', (err) => reject(new Error(`prometheus could not be started (${err.message})`))));
    await Promise.race([this.waitReady(20_000), spawnError]);
  }

  private async waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.child?.exitCode !== null) throw new Error(`prometheus exited (${this.child?.exitCode}):\n${this.output}`);
      try {
        if ((await fetch(`${this.url}/-/ready`)).ok) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`prometheus was not ready within ${timeoutMs} ms:\n${this.output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Prometheus's own log, for failure messages. */
  get log(): string {
    return this.output;
  }

  private async api<T>(path: string): Promise<T> {
    const res = await fetch(`${this.url}/api/v1/${path}`);
    const body = (await res.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`prometheus API ${path}: ${body.error ?? res.status}`);
    return body.data;
  }

  /** An instant query, now or at `at` (ms); rejects with Prometheus's error for a query it refuses. */
  async query(expr: string, at?: number): Promise<Sample[]> {
    const time = at === undefined ? '' : `&time=${at / 1000}`;
    const data = await this.api<{ resultType: string; result: Sample[] | [number, string] }>(`query?query=${encodeURIComponent(expr)}${time}`);
    // A scalar answer (vector(0) is not one, time() is) as one unlabelled sample.
    return data.resultType === 'scalar' ? [{ metric: {}, value: data.result as [number, string] }] : (data.result as Sample[]);
  }

  /** A range vector selector's raw samples at `at` (ms), as [seconds, value] pairs. */
  async samples(selector: string, at: number): Promise<Array<{ metric: Record<string, string>; values: Array<[number, string]> }>> {
    const data = await this.api<{ resultType: string; result: Array<{ metric: Record<string, string>; values: Array<[number, string]> }> }>(
      `query?query=${encodeURIComponent(selector)}&time=${at / 1000}`,
    );
    if (data.resultType !== 'matrix') throw new Error(`${selector}: a ${data.resultType}, not a range vector`);
    return data.result;
  }

  /** Alerts pending or firing now. */
  async alerts(): Promise<Alert[]> {
    return (await this.api<{ alerts: Alert[] }>('alerts')).alerts;
  }

  /** Every loaded rule as Prometheus parsed it (query in its canonical form). */
  async rules(): Promise<Rule[]> {
    const data = await this.api<{ groups: Array<{ rules: Rule[] }> }>('rules');
    return data.groups.flatMap((g) => g.rules);
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Polls until `check` returns a value other than undefined. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms${last ? ` (last error: ${String(last)})` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
