import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// The agent runs as the operator runs it: the compiled CLI, in its own
// process (npm test builds dist/ first). Only the variables a test gives reach
// it, so the developer's own DEVICE_AGENT_* settings never leak in.
const bin = resolve(fileURLToPath(import.meta.url), '../../../bin/device-agent.js');

/**
 * No status endpoint unless a test names an address: the default,
 * 127.0.0.1:9317, is where an agent installed on the same host listens, and
 * `doctor` asks it and `run` takes it (issue 70: doctor's tests failed 6 of
 * 13 beside an installed agent).
 */
const NO_STATUS = { DEVICE_AGENT_STATUS_LISTEN: 'off' };

export interface AgentRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function baseEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), 'da-home-'));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    DEVICE_AGENT_STATE_DIR: join(home, 'state'),
    DEVICE_AGENT_LOG_FORMAT: 'json',
    ...NO_STATUS,
  };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

/** Runs a one-shot command to its end. */
export function runAgent(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<AgentRun> {
  const agent = startAgent(args, env);
  return agent.exited(timeoutMs);
}

/** The JSON log lines of one stream, parsed once each as they arrive (a test polls logs() every 50 ms for minutes). */
class ParsedLines {
  text = '';
  readonly lines: Array<Record<string, unknown>> = [];
  private parsedTo = 0;

  /** The complete lines parsed so far, and a last line without its newline yet if it parses. */
  read(): Array<Record<string, unknown>> {
    const end = this.text.lastIndexOf('\n') + 1;
    if (end > this.parsedTo) {
      for (const l of this.text.slice(this.parsedTo, end).split('\n')) if (l.startsWith('{"level"')) this.lines.push(JSON.parse(l) as Record<string, unknown>);
      this.parsedTo = end;
    }
    const tail = this.text.slice(end);
    if (!tail.startsWith('{"level"')) return this.lines;
    try {
      return [...this.lines, JSON.parse(tail) as Record<string, unknown>];
    } catch {
      return this.lines;
    }
  }
}

export class AgentProcess {
  private out = new ParsedLines();
  private err = new ParsedLines();
  private readonly done: Promise<AgentRun>;

  get stdout(): string {
    return this.out.text;
  }
  /** A test may cut what it keeps (a long soak): the lines are parsed again from there. */
  set stdout(text: string) {
    this.out = new ParsedLines();
    this.out.text = text;
  }
  get stderr(): string {
    return this.err.text;
  }
  set stderr(text: string) {
    this.err = new ParsedLines();
    this.err.text = text;
  }

  constructor(readonly child: ChildProcess) {
    child.stdout?.on('data', (c: Buffer) => (this.out.text += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (this.err.text += c.toString()));
    this.done = new Promise((resolveRun) => {
      child.once('exit', (code, signal) => {
        // 'exit' can come before the last output: wait for the pipes to close.
        let open = 2;
        const closed = () => --open === 0 && resolveRun({ code, signal, stdout: this.stdout, stderr: this.stderr });
        if (child.stdout?.closed ?? true) open--;
        else child.stdout!.once('close', closed);
        if (child.stderr?.closed ?? true) open--;
        else child.stderr!.once('close', closed);
        if (open === 0) resolveRun({ code, signal, stdout: this.stdout, stderr: this.stderr });
      });
    });
  }

  /** Log lines (JSON) from both streams, parsed; other lines are skipped. */
  logs(): Array<Record<string, unknown>> {
    return [...this.out.read(), ...this.err.read()];
  }

  async waitForLog(predicate: (line: Record<string, unknown>) => boolean, timeoutMs = 30_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.logs().find(predicate);
      if (hit) return hit;
      if (Date.now() > deadline) {
        // Its last lines above debug on the error's first line too: CI's tail prints only that line of a failed test.
        const last = this.logs()
          .filter((l) => l.level !== 'debug' && l.level !== 'trace')
          .slice(-3)
          .map((l) => `${String(l.level)} ${String(l.msg).slice(0, 200)}`)
          .join(' | ');
        throw new Error(
          `no matching log line within ${timeoutMs} ms (${await this.vitals()}; its last lines: ${last || 'none'}); output:\n${this.stdout}\n${this.stderr}`,
        );
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /**
   * For a wait that failed: whether the agent still runs, and the CPU it spent over one second (from /proc): a
   * silent agent that spins is stuck in a loop, one that idles waits on something that never comes.
   */
  async vitals(): Promise<string> {
    const { exitCode, signalCode, pid } = this.child;
    if (exitCode !== null || signalCode !== null) return `the agent exited: code ${exitCode}, signal ${signalCode}`;
    const look = <T>(file: string, pick: (text: string) => T | undefined) => {
      try {
        return pick(readFileSync(`/proc/${pid}/${file}`, 'utf8'));
      } catch {
        return undefined;
      }
    };
    // utime and stime, in clock ticks (100 a second on Linux), after the command's closing parenthesis: the last one,
    // as the command's name may hold one.
    const cpu = () =>
      look('stat', (t) =>
        t
          .slice(t.lastIndexOf(') ') + 2)
          .split(' ')
          .slice(11, 13)
          .reduce((a, b) => a + Number(b), 0),
      );
    const before = cpu();
    await new Promise((r) => setTimeout(r, 1_000));
    const after = cpu();
    if (before === undefined || after === undefined) return `the agent (pid ${pid}): no /proc`;
    // Its state (R running, S sleeping, T stopped, D in the kernel) and, asleep, the kernel function it waits in.
    const state = look('status', (t) => /^State:\s*(.+)$/m.exec(t)?.[1]);
    const wchan = look('wchan', (t) => t.trim() || undefined);
    return `the agent (pid ${pid}) runs, ${(after - before) * 10} ms of CPU in the last second, state ${state ?? '?'}, waiting in ${wchan ?? '?'}`;
  }

  async exited(timeoutMs = 60_000): Promise<AgentRun> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.child.kill('SIGKILL');
        reject(new Error(`agent did not exit within ${timeoutMs} ms; output:\n${this.stdout}\n${this.stderr}`));
      }, timeoutMs);
    });
    try {
      return await Promise.race([this.done, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 15_000): Promise<AgentRun> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.exited(timeoutMs);
  }
}

export function startAgent(args: string[], env: Record<string, string>): AgentProcess {
  const child = spawn(process.execPath, [bin, ...args], { env: { ...NO_STATUS, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new AgentProcess(child);
}

/**
 * The environment of an agent that reports to the cloud double through the
 * given adb server: no jitter, a schedule far away and (as baseEnv) no
 * status listener, unless `extra` says otherwise.
 */
export function daemonEnv(
  adbEnv: Record<string, string>,
  cloud: { url: string; username: string; apiKey: string },
  extra: Record<string, string | undefined> = {},
): Record<string, string> {
  return baseEnv({
    ...adbEnv,
    DEVICE_AGENT_BASE_URL: cloud.url,
    DEVICE_AGENT_USERNAME: cloud.username,
    DEVICE_AGENT_API_KEY: cloud.apiKey,
    DEVICE_AGENT_JITTER_SECONDS: '0',
    DEVICE_AGENT_SCHEDULE: '0 0 1 1 *',
    ...extra,
  });
}
