// Quarantine's files in the state directory: the quarantines themselves
// (quarantine.json, written atomically, read back field by field), and the
// releases an operator asks for (quarantine-requests/, one file each, left
// there by `device-agent quarantine release`), taken by the daemon and
// removed. The package makes the folder the daemon's group's (2770: its
// operators join it), each file in it of that group. A request another
// user could have left (a file not of the daemon's user, root, or its group
// in a folder only the group writes to) is refused and removed with one
// line: the state directory is the daemon's, and so is the say over its phones.
import { lstatSync, mkdirSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import {
  QUARANTINE_FILE,
  QUARANTINE_FILE_MAX_BYTES,
  QUARANTINE_REQUESTS_DIR,
  quarantineFileFrom,
  quarantineFileText,
  REQUEST_MAX_BYTES,
  requestFrom,
  type QuarantineEntry,
  type ReleaseRequest,
} from '../../devices/quarantine.js';
import { STATE_ACCESS_ADVICE } from '../../config/service-state.js';
import type { Logger } from '../../log/logger.js';
import { StateFile } from '../../config/state-file.js';
import { readStateFile } from '../../util/atomic-file.js';

/** Requests taken at most per look: a flood of files is worked through a few at a time. */
const REQUESTS_PER_LOOK = 32;

/** The quarantines kept; none when there is no file, or one that cannot be read as the agent's. */
export class QuarantineFiles extends StateFile<Iterable<[string, QuarantineEntry]>> {
  readonly requests: string;
  private readonly uid = process.getuid?.();

  constructor(stateDir: string, logger: Logger) {
    super(
      join(stateDir, QUARANTINE_FILE),
      {
        what: 'the quarantines',
        maxBytes: QUARANTINE_FILE_MAX_BYTES,
        parse: quarantineFileFrom,
        text: (entries) => quarantineFileText([...entries]),
        lost: 'no phone is held out from before this start',
        unsaved: 'they hold while the agent runs, but a restart would put the phones back',
      },
      logger,
    );
    this.requests = join(stateDir, QUARANTINE_REQUESTS_DIR);
  }

  /** The releases waiting, oldest first, each removed as it is taken; a file that is not a request is removed with one line. */
  take() {
    let names: string[];
    try {
      names = readdirSync(this.requests)
        .filter((n) => n.endsWith('.json'))
        .sort()
        .slice(0, REQUESTS_PER_LOOK);
    } catch {
      return [];
    }
    const out: ReleaseRequest[] = [];
    // The group only where nobody else writes: in a folder others may write to, the setgid bit gives it to anyone.
    let group: number | undefined;
    try {
      if ((lstatSync(this.requests).mode & 0o002) === 0) group = process.getgid?.();
    } catch {
      // Gone meanwhile: each file's own lstat says so below.
    }
    for (const name of names) {
      const path = join(this.requests, name);
      let request: ReleaseRequest | undefined;
      let why: string | undefined;
      try {
        const { uid: owner, gid } = lstatSync(path);
        if (this.uid !== undefined && owner !== this.uid && owner !== 0 && gid !== group)
          why = `it belongs to uid ${owner}, neither the agent's user, nor root, nor of its group`;
        else {
          const text = readStateFile(path, REQUEST_MAX_BYTES);
          request = text === undefined ? undefined : requestFrom(text);
          if (!request) why = 'it is not a request the quarantine command writes';
        }
      } catch (err) {
        why = (err as Error).message;
      }
      try {
        unlinkSync(path);
      } catch {
        // Taken by another run, or not ours to remove: said below if it was not a request.
      }
      if (request) out.push(request);
      else
        this.logger.warn({ file: path }, `a quarantine request ${path} was not taken: ${why}; device-agent quarantine release SERIAL, ${STATE_ACCESS_ADVICE}`);
    }
    return out;
  }

  /** The folder requests go to, made with the state directory's mode. */
  ensureRequests() {
    try {
      mkdirSync(this.requests, { recursive: true, mode: 0o750 });
    } catch {
      // The state directory's own trouble is said by its writers.
    }
  }
}
