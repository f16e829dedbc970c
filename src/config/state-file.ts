// One file the daemon keeps in the state directory across restarts, the one way every such file is read and written.
// Read at the start, bounded in size: one that is not the agent's (damaged, foreign, too big, a FIFO in its place) is
// one warning naming it, the start goes on without it, and the next save replaces it. A save is atomic
// (src/util/atomic-file.ts); one that fails is said once, as the state directory's trouble where it is one
// (StateDirTrouble: one per process, so that the daemon's writers say it once between them), the value stays in memory
// and the next save writes it.
import { join } from 'node:path';
import type { Logger } from '../log/logger.js';
import { limited } from '../log/limited.js';
import { StateDirTrouble, stateWriteProblem } from '../log/state-dir-trouble.js';
import { readStateFile, StateFileError, writeAtomically } from '../util/atomic-file.js';
import { every, type Timers } from '../util/clock.js';

/** What a state file holds and what its loss costs, in its lines. */
export interface StateFileKind<T> {
  /** What it keeps: "the quarantines". */
  what: string;
  /** Far more than the agent writes: a bigger file is not its own, and is not read. */
  maxBytes: number;
  /** The value the text holds; undefined (or a throw): not one the agent wrote. */
  parse(text: string): T | undefined;
  text(value: T): string;
  /** What a start without it costs: "no phone is held out from before this start". */
  lost: string;
  /** What a save that fails costs: "a restart would put the phones back". */
  unsaved: string;
  /** Written only when this changes (default: at every save). */
  key?(value: T): string;
}

const trouble = new StateDirTrouble();

export class StateFile<T> {
  private problem: string | undefined;
  private savedKey: string | undefined;
  private dirty = false;

  constructor(
    readonly file: string,
    private readonly kind: StateFileKind<T>,
    protected readonly logger: Logger,
  ) {}

  /** What the file holds; undefined when there is none, or one the agent cannot use (said once). */
  load() {
    const { file, kind } = this;
    let text: string | undefined;
    try {
      text = readStateFile(file, kind.maxBytes);
    } catch (err) {
      this.warn(`${err instanceof StateFileError ? err.message : `cannot read ${file}: ${(err as Error).message}`}; ${kind.lost}`);
      return undefined;
    }
    if (text === undefined) return undefined;
    let value: T | undefined;
    try {
      value = kind.parse(text);
    } catch {
      // Not the agent's: said below.
    }
    if (value === undefined) this.warn(`${file} is not one the agent wrote; ${kind.lost} (it is replaced at the next save)`);
    else this.savedKey = kind.key?.(value);
    return value;
  }

  private warn(line: string) {
    limited(this.logger).warn('state-dir-problem', { file: this.file }, line);
  }

  /** The value changed since it was saved: the periodic save (every) writes it. */
  changed() {
    this.dirty = true;
  }

  /** Writes the value (to `name` in the folder this file is, for a file of files); false when it could not, said once. */
  save(value: T, name?: string) {
    const { file, kind } = this;
    const key = kind.key?.(value);
    if (key !== undefined && key === this.savedKey) return true;
    try {
      writeAtomically(name === undefined ? file : join(file, name), kind.text(value));
    } catch (err) {
      const line = `cannot keep ${kind.what} in ${file}: ${stateWriteProblem(err)}; ${kind.unsaved}`;
      this.problem = trouble.writeFailed(this.logger, file, err, line, this.problem);
      return false;
    }
    this.savedKey = key;
    this.dirty = false;
    trouble.works(file);
    if (this.problem) this.logger.info({ file }, `the state directory keeps ${kind.what} again`);
    this.problem = undefined;
    return true;
  }

  /** The daemon's periodic save: value() every ms while it changed (a failed save is tried again), and once more at stop. */
  every(timers: Timers, ms: number, value: () => T) {
    const save = (): void => void (this.dirty && this.save(value()));
    const timer = every(timers, ms, save, { unref: true });
    return {
      stop: () => {
        timer.cancel();
        save();
      },
    };
  }
}
