import type { Logger } from '../../log/logger.js';
import { limited } from '../../log/limited.js';
import { readStateFile, writeAtomically } from '../../util/atomic-file.js';
import { StateDirTrouble, stateWriteProblem } from '../../log/state-dir-trouble.js';

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

/** Where a list of hub ports is kept across runs (a KeptPortsFile; none: not kept). */
export interface PortsKeeper<T> {
  load(): T[];
  save(ports: readonly T[]): void;
}

/** Where the ports held off are kept across runs (PausedPortsFile; none: not kept). */
export type PausedPortsKeeper = PortsKeeper<PausedPort>;

/** What a kept list is, and what its loss costs, in its lines. */
export interface KeptWords<T> {
  isItem(v: unknown): v is T;
  keyOf(p: T): string;
  /** What an unreadable file costs ("hub ports a previous run left off (if any) must be switched on by hand"). */
  lost: string;
  /** What a failed write costs ("after a crash they would stay off until switched on by hand"). */
  unsaved: string;
  /** What the list is ("the hub ports held off"). */
  what: string;
}

/**
 * A list of hub ports charge control keeps in the state directory. Written atomically, only when the list changes; a
 * problem costs one warning.
 */
export class KeptPortsFile<T> implements PortsKeeper<T> {
  private last = '';
  private lastProblem: string | undefined;

  constructor(
    readonly file: string,
    private readonly logger: Logger,
    private readonly words: KeptWords<T>,
    private readonly trouble = new StateDirTrouble(),
  ) {}

  load(): T[] {
    let text: string | undefined;
    try {
      text = readStateFile(this.file, MAX_FILE_BYTES);
    } catch (err) {
      this.warn(`cannot read ${this.file}: ${(err as Error).message}; ${this.words.lost}`);
      return [];
    }
    if (text === undefined) return [];
    try {
      const parsed = JSON.parse(text) as { ports?: unknown };
      const ports = Array.isArray(parsed.ports) ? parsed.ports.filter((p) => this.words.isItem(p)) : [];
      this.last = this.keyOf(ports);
      return ports;
    } catch {
      this.warn(`${this.file} is not the JSON the agent writes; ${this.words.lost}`);
      return [];
    }
  }

  save(ports: readonly T[]): void {
    const key = this.keyOf(ports);
    if (key === this.last) return;
    try {
      writeAtomically(this.file, JSON.stringify({ savedAt: new Date().toISOString(), ports }) + '\n');
      this.last = key;
      this.trouble.works(this.file);
      if (this.lastProblem) this.logger.info({ file: this.file }, `${this.words.what} are kept in the state directory again`);
      this.lastProblem = undefined;
    } catch (err) {
      this.lastProblem = this.trouble.writeFailed(
        this.logger,
        this.file,
        err,
        `cannot keep ${this.words.what} in ${this.file}: ${stateWriteProblem(err)}; ${this.words.unsaved}`,
        this.lastProblem,
      );
    }
  }

  private keyOf(ports: readonly T[]): string {
    return ports
      .map((p) => this.words.keyOf(p))
      .sort()
      .join('\n');
  }

  private warn(problem: string): void {
    if (problem === this.lastProblem) return;
    this.lastProblem = problem;
    limited(this.logger).warn('state-dir-problem', { file: this.file }, problem);
  }
}

/**
 * The hub ports charge control holds off: a stopping agent switches them on itself, but after a crash the phones would
 * stay without power for good, so the next start reads this file and switches them on.
 */
export class PausedPortsFile extends KeptPortsFile<PausedPort> {
  constructor(file: string, logger: Logger, trouble?: StateDirTrouble) {
    super(
      file,
      logger,
      {
        isItem: isPausedPort,
        keyOf: (p) => `${p.hub}:${p.port}=${p.udid}`,
        lost: 'hub ports a previous run left off (if any) must be switched on by hand',
        unsaved: 'after a crash they would stay off until switched on by hand',
        what: 'the hub ports held off',
      },
      trouble,
    );
  }
}

function isPausedPort(v: unknown): v is PausedPort {
  const p = v as Partial<PausedPort> | null;
  return typeof p?.hub === 'string' && typeof p.port === 'number' && typeof p.udid === 'string' && (p.way === 'uhubctl' || p.way === 'command');
}
