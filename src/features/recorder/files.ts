// The incident files in the state directory's incidents/: one per incident,
// named by its time first so that names sort oldest first; bounded per phone
// and in all, the oldest removed first after each write, each written
// atomically (src/config/state-file.ts). What they hold was masked as it was kept (ring.ts). A file that
// is not the agent's (a hand edit, another program's) is left alone and
// counted against nothing.
import { readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import {
  fileSafe,
  idOfFileName,
  INCIDENT_MAX_BYTES,
  incidentFileName,
  incidentFrom,
  incidentNameParts,
  incidentText,
  INCIDENTS_DIR,
  type IncidentFile,
  type IncidentKind,
  type PhoneRef,
} from '../../devices/incidents.js';
import type { Logger } from '../../log/logger.js';
import { StateFile } from '../../config/state-file.js';
import { readStateFile } from '../../util/atomic-file.js';

export interface Bounds {
  perPhone: number;
  total: number;
}

/** The folder of incident files: each save writes one (its trouble said as the state directory's, its dirname). */
export class IncidentFiles extends StateFile<IncidentFile> {
  private seq = 0;
  /** The agent's incident files, oldest first, as of the last write or prune (what the status page lists). */
  listed: string[] = [];

  constructor(
    stateDir: string,
    private readonly bounds: Bounds,
    logger: Logger,
  ) {
    super(
      join(stateDir, INCIDENTS_DIR),
      {
        what: 'an incident',
        maxBytes: INCIDENT_MAX_BYTES,
        parse: () => undefined,
        text: incidentText,
        lost: '',
        unsaved: "the phone's recent history stays in memory only",
      },
      logger,
    );
  }

  /** Writes one incident; returns its file name, or undefined when it could not (said once). */
  write(phone: PhoneRef, kind: IncidentKind, file: IncidentFile) {
    const name = incidentFileName(file.at, phone, kind, this.seq++);
    if (!this.save(file, name)) return undefined;
    this.prune();
    return name;
  }

  /** Removes the oldest files past the bounds: per phone first, then in all. */
  prune() {
    let names: string[];
    try {
      // The agent's incident files, oldest first.
      names = readdirSync(this.file)
        .filter((n) => idOfFileName(n) !== undefined)
        .sort();
    } catch {
      names = [];
    }
    const byPhone = Map.groupBy(names, (n) => idOfFileName(n)!);
    const gone = new Set<string>();
    for (const list of byPhone.values()) for (const n of list.slice(0, Math.max(0, list.length - this.bounds.perPhone))) gone.add(n);
    const left = names.filter((n) => !gone.has(n));
    for (const n of left.slice(0, Math.max(0, left.length - this.bounds.total))) gone.add(n);
    for (const n of gone) {
      try {
        unlinkSync(join(this.file, n));
      } catch {
        // Removed meanwhile (an operator, another run): nothing more to do.
      }
    }
    this.listed = names.filter((n) => !gone.has(n));
  }

  /** One phone's incidents, newest first: when, what kind and the file from each name, and with `read` the cause from each file. */
  of(udid: string, read: boolean) {
    const id = fileSafe(udid);
    return this.listed
      .flatMap((file) => {
        const parts = incidentNameParts(file);
        if (parts?.id !== id) return [];
        let cause: string | undefined;
        try {
          const text = read ? readStateFile(join(this.file, file), INCIDENT_MAX_BYTES) : undefined;
          cause = text === undefined ? undefined : incidentFrom(text)?.cause;
        } catch {
          // Removed meanwhile: its name still says when and what.
        }
        return [{ at: parts.at, kind: parts.kind, file, cause }];
      })
      .reverse();
  }
}
