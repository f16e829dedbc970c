import type { Logger } from '../../log/logger.js';
import { StateFile } from '../../config/state-file.js';
import { jsonObject } from '../../util/json-object.js';
import type { ChargePause } from './pauses.js';

/** A hub port charge control holds off on purpose. */
export type PausedPort = Pick<ChargePause, 'hub' | 'port' | 'udid' | 'way'>;

/** Where a list of hub ports is kept across runs (portsFile; none: not kept). */
export interface PortsFile<T> {
  load(): readonly T[] | undefined;
  save(ports: readonly T[]): unknown;
}

/** What a kept list is, and what its loss costs, in its lines. */
export interface KeptWords<T> {
  isItem: (v: unknown) => v is T;
  keyOf: (p: T) => string;
  /** What an unreadable file costs ("hub ports a previous run left off (if any) must be switched on by hand"). */
  lost: string;
  /** What a failed write costs ("after a crash they would stay off until switched on by hand"). */
  unsaved: string;
  /** What the list is ("the hub ports held off"). */
  what: string;
}

/** A list of hub ports charge control keeps in the state directory, written only when the list changes. */
export function portsFile<T>(file: string, logger: Logger, words: KeptWords<T>): PortsFile<T> {
  return new StateFile<readonly T[]>(
    file,
    {
      ...words,
      // Far more than a host's hub ports take.
      maxBytes: 1024 * 1024,
      parse: (text) => {
        const ports = jsonObject(text)?.ports;
        return Array.isArray(ports) ? ports.filter(words.isItem) : undefined;
      },
      text: (ports) => JSON.stringify({ savedAt: new Date().toISOString(), ports }) + '\n',
      key: (ports) => ports.map(words.keyOf).sort().join('\n'),
    },
    logger,
  );
}

/**
 * The hub ports charge control holds off: a stopping agent switches them on itself, but after a crash the phones would
 * stay without power for good, so the next start reads this file and switches them on.
 */
export function pausedPortsFile(file: string, logger: Logger) {
  return portsFile(file, logger, {
    isItem: isPausedPort,
    keyOf: (p) => `${p.hub}:${p.port}=${p.udid}`,
    lost: 'hub ports a previous run left off (if any) must be switched on by hand',
    unsaved: 'after a crash they would stay off until switched on by hand',
    what: 'the hub ports held off',
  });
}

function isPausedPort(v: unknown): v is PausedPort {
  const p = v as Partial<PausedPort> | null;
  return typeof p?.hub === 'string' && typeof p.port === 'number' && typeof p.udid === 'string' && (p.way === 'uhubctl' || p.way === 'command');
}
