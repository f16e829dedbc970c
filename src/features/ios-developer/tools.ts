// The host's iOS tools and their versions, for the support table
// (support.ts): runs each tool's version command (`ios version`,
// `pymobiledevice3 version`) at start and every `refreshMs`, bounded, never
// through a shell. A tool not found is absent; one that answers no version
// it can be judged by is unreadable, never old.
import { execFile } from 'node:child_process';
import type { Logger } from '../../log/logger.js';
import { every, type Timer, type Timers } from '../../util/clock.js';
import { parseGoIosVersion, parsePymobiledevice3Version, versionText, type ToolFound, type ToolName } from './support.js';

/** One run of a command: its stdout, or that it is not there, or why it failed. */
export type RunResult = { stdout: string } | { missing: true } | { error: string };
export type Run = (command: string, args: readonly string[], timeoutMs: number) => Promise<RunResult>;

const TOOL_TIMEOUT_MS = 10_000;
/** The tools' versions are read again this often: they change when someone installs one. */
const REFRESH_MS = 3_600_000;

export const runCommand: Run = (command, args, timeoutMs) =>
  new Promise((resolve) => {
    execFile(command, [...args], { timeout: timeoutMs, maxBuffer: 64 * 1024, env: { ...process.env, NO_COLOR: '1' } }, (err, stdout) => {
      if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') return resolve({ missing: true });
      // A version printed before a non-zero exit still tells the version.
      if (err && !stdout) return resolve({ error: err.killed ? `no answer within ${timeoutMs} ms` : err.message.split('\n', 1)[0]! });
      resolve({ stdout: String(stdout) });
    });
  });

/** How each tool's `version` answer reads. */
const VERSION_OF = { 'go-ios': parseGoIosVersion, pymobiledevice3: parsePymobiledevice3Version };

export interface ToolsOptions {
  /** Each tool's command (a name looked up on PATH, or a path). */
  commands: ReadonlyArray<{ tool: ToolName; command: string }>;
  clock: Timers;
  logger: Logger;
  run?: Run;
}

/** The host's tools, read at start and every REFRESH_MS; each absent until its first read. */
export function hostTools({ commands, clock, logger, run = runCommand }: ToolsOptions) {
  let found: ToolFound[] = commands.map((c) => ({ tool: c.tool, state: 'absent' }));
  let timer: Timer | undefined;

  const detect = async (tool: ToolName, command: string): Promise<ToolFound> => {
    const r = await run(command, ['version'], TOOL_TIMEOUT_MS);
    if ('missing' in r) return { tool, state: 'absent' };
    if ('error' in r) return { tool, state: 'unreadable', said: r.error.slice(0, 120) };
    const version = VERSION_OF[tool](r.stdout);
    return version ? { tool, state: 'found', version } : { tool, state: 'unreadable', said: JSON.stringify(r.stdout.trim().slice(0, 80)) };
  };

  const refresh = async () => {
    const now = await Promise.all(commands.map((c) => detect(c.tool, c.command)));
    const text = (fs: readonly ToolFound[]) => fs.map(describe).join(', ');
    if (text(now) !== text(found)) logger.info({ tools: now.map(describe) }, `iOS tools on this host: ${text(now)}`);
    found = now;
  };

  return {
    tools: (): readonly ToolFound[] => found,
    refresh,
    async start() {
      await refresh();
      timer ??= every(clock, REFRESH_MS, () => void refresh(), { unref: true });
    },
    stop() {
      timer?.cancel();
      timer = undefined;
    },
  };
}

export function describe(t: ToolFound) {
  return t.state === 'found'
    ? `${t.tool} ${versionText(t.version)}`
    : t.state === 'absent'
      ? `${t.tool} not found`
      : `${t.tool} (version unreadable: ${t.said})`;
}
