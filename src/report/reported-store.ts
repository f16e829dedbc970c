import type { DeviceInfo } from '../cloud/types.js';
import type { Logger } from '../log/logger.js';
import { storedDevice, storedFields } from './stored-device.js';
import { readStateFile, StateFileError, writeAtomically } from '../util/atomic-file.js';
import { limited } from '../log/limited.js';
import { StateDirTrouble, stateWriteProblem } from '../log/state-dir-trouble.js';

/** Far more than the agent writes (its identity, a few hundred bytes a device): a bigger file is not its own, and not read into memory. */
const MAX_FILE_BYTES = 16 * 1024 * 1024;

/**
 * The devices the cloud was last told are present, by identity, kept in the state directory, so that an agent that
 * starts again reports those that did not come back as UNPLUGGED rather than leave them online for good. Written
 * atomically; a full or read-only state directory costs one warning per problem, and reporting goes on.
 */
export class ReportedStore {
  private lastIds: string | undefined;
  private lastProblem: string | undefined;

  constructor(
    readonly file: string,
    private readonly logger: Logger,
    private readonly trouble = new StateDirTrouble(),
  ) {}

  /** The devices of the last delivered report; none when there is no file or it is unreadable. */
  load(): DeviceInfo[] {
    let text: string | undefined;
    try {
      text = readStateFile(this.file, MAX_FILE_BYTES);
    } catch (err) {
      this.warn(err instanceof StateFileError ? `${err.message}; starting without it` : `cannot read ${this.file}: ${(err as Error).message}`);
      return [];
    }
    if (text === undefined) return [];
    try {
      const parsed = JSON.parse(text) as { devices?: unknown };
      const devices = Array.isArray(parsed.devices) ? parsed.devices.flatMap((d) => storedDevice(d) ?? []) : [];
      this.lastIds = idsOf(devices);
      return devices;
    } catch {
      this.warn(`${this.file} is not the JSON the agent writes (a crash of an older version, or an edit); starting without it`);
      return [];
    }
  }

  /** Keeps the present devices of a delivered report; writes only when the set of udids changed. */
  save(devices: readonly DeviceInfo[]): void {
    const ids = idsOf(devices);
    if (ids === this.lastIds) return;
    try {
      writeAtomically(this.file, JSON.stringify({ savedAt: new Date().toISOString(), devices: devices.map(storedFields) }) + '\n');
      this.lastIds = ids;
      this.trouble.works(this.file);
      if (this.lastProblem) this.logger.info({ file: this.file }, 'the reported device set is kept in the state directory again');
      this.lastProblem = undefined;
    } catch (err) {
      this.lastProblem = this.trouble.writeFailed(
        this.logger,
        this.file,
        err,
        `cannot keep the reported device set in ${this.file}: ${stateWriteProblem(err)}. Reports go on; after a restart, devices unplugged ` +
          'meanwhile may stay online in the cloud until this is fixed (free space, or make the state directory writable)',
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

function idsOf(devices: readonly DeviceInfo[]): string {
  return devices
    .map((d) => d.udid)
    .sort()
    .join('\n');
}
