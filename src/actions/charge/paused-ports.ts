import type { Logger } from '../../log/logger.js';
import { limited } from '../../log/limited.js';
import { readStateFile, writeAtomically } from '../../util/atomic-file.js';
import { sayWriteFailure, stateDirWorks, stateWriteProblem } from '../../log/state-dir-trouble.js';

/** Far more than a host's hub ports take. */
const MAX_FILE_BYTES = 1024 * 1024;

/** A hub port charge control holds off on purpose. */
export interface PausedPort {
  hub: string;
  port: number;
  udid: string;
  /** How it is switched: uhubctl, or the operator's command (charge.ways). */
  way: 'uhubctl' | 'command';
}

/** Where the ports held off are kept across runs (PausedPortsFile; none: not kept). */
export interface PausedPortsKeeper {
  load(): PausedPort[];
  save(ports: readonly PausedPort[]): void;
}

/**
 * The hub ports charge control holds off, kept in the state directory. A
 * stopping agent switches them on itself; one that crashed, or was killed,
 * could not, and the phones behind them would stay without power for good.
 * The next start reads this file and switches them on. Written atomically,
 * only when the set changes; a problem costs one warning.
 */
export class PausedPortsFile implements PausedPortsKeeper {
  private last = '';
  private lastProblem: string | undefined;

  constructor(
    readonly file: string,
    private readonly logger: Logger,
  ) {}

  load(): PausedPort[] {
    let text: string | undefined;
    try {
      text = readStateFile(this.file, MAX_FILE_BYTES);
    } catch (err) {
      this.warn(`cannot read ${this.file}: ${(err as Error).message}; hub ports a previous run left off (if any) must be switched on by hand`);
      return [];
    }
    if (text === undefined) return [];
    try {
      const parsed = JSON.parse(text) as { ports?: unknown };
      const ports = Array.isArray(parsed.ports) ? parsed.ports.filter(isPausedPort) : [];
      this.last = keyOf(ports);
      return ports;
    } catch {
      this.warn(`${this.file} is not the JSON the agent writes; hub ports a previous run left off (if any) must be switched on by hand`);
      return [];
    }
  }

  save(ports: readonly PausedPort[]): void {
    const key = keyOf(ports);
    if (key === this.last) return;
    try {
      writeAtomically(this.file, JSON.stringify({ savedAt: new Date().toISOString(), ports }) + '\n');
      this.last = key;
      stateDirWorks(this.file);
      if (this.lastProblem) this.logger.info({ file: this.file }, 'the hub ports held off are kept in the state directory again');
      this.lastProblem = undefined;
    } catch (err) {
      this.lastProblem = sayWriteFailure(
        this.logger,
        this.file,
        err,
        `cannot keep the hub ports held off in ${this.file}: ${stateWriteProblem(err)}; after a crash they would stay off until switched on by hand`,
        this.lastProblem,
      );
    }
  }

  private warn(problem: string): void {
    if (problem === this.lastProblem) return;
    this.lastProblem = problem;
    limited(this.logger).warn('state-dir-problem', { file: this.file }, problem);
  }
}

function isPausedPort(v: unknown): v is PausedPort {
  const p = v as Partial<PausedPort> | null;
  return typeof p?.hub === 'string' && typeof p.port === 'number' && typeof p.udid === 'string' && (p.way === 'uhubctl' || p.way === 'command');
}

function keyOf(ports: readonly PausedPort[]): string {
  return ports
    .map((p) => `${p.hub}:${p.port}=${p.udid}`)
    .sort()
    .join('\n');
}
