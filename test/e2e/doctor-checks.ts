import { expect } from 'vitest';
import type { CheckItem } from '../../src/doctor/checklist.js';

// `doctor --json` as a test reads it: its checks by id (and phone), for the findings the text sums up in one line.

export interface DoctorJson {
  exitCode: number;
  failed: number;
  warnings: number;
  unread: number;
  checks: CheckItem[];
}

export function doctorJson(stdout: string): DoctorJson {
  return JSON.parse(stdout) as DoctorJson;
}

/** The one check of this id (and phone) in `doctor --json`'s output. */
export function checkOf(stdout: string, id: string, phone?: string): CheckItem {
  const found = doctorJson(stdout).checks.filter((c) => c.id === id && c.phone === phone);
  expect(found, `no single check ${id} ${phone ?? ''} in:\n${stdout}`).toHaveLength(1);
  return found[0]!;
}
