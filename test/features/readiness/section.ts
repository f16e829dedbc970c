import { readFileSync } from 'node:fs';
import { READINESS_SETTINGS } from '../../../src/platforms/android/inventory/probes/readiness.js';

export function fixture(name: string): string {
  return readFileSync(new URL(`fixtures/${name}`, import.meta.url), 'utf8');
}

interface Outputs {
  /**
   * `settings list NAMESPACE` outputs, with the exit status (default 0).
   * `cut`: a recording its publisher cut short, so that a key it does not
   * print may be a row of the phone's all the same: the section then counts
   * no row, as for a list not read whole, and such a key stays unread.
   */
  lists?: Partial<Record<keyof typeof READINESS_SETTINGS, { text: string; status?: number; cut?: true }>>;
  /** `dumpsys window policy`. */
  window?: string;
  props?: Record<string, string>;
}

/** A line the script's `tally` counts as a row: name=value, the name of a setting's characters. */
const ROW = /^[A-Za-z0-9_.:-]+=/;

/** The readiness section as the device's script prints it from these command outputs: the `tally` filters applied as the shell does (script.ts). */
export function readinessSection(outputs: Outputs): string {
  const lines: string[] = [];
  for (const [namespace, keys] of Object.entries(READINESS_SETTINGS)) {
    const list = outputs.lists?.[namespace as keyof typeof READINESS_SETTINGS];
    lines.push(`namespace:${namespace}`);
    let rows = 0;
    if (list)
      for (const line of list.text.replace(/\r$/gm, '').split('\n')) {
        if (ROW.test(line)) rows++;
        if ((keys as readonly string[]).some((k) => line.startsWith(`${k}=`))) lines.push(line);
      }
    lines.push(`status:${namespace}=${list ? (list.status ?? 0) : 1}`, `rows:${namespace}=${list?.cut ? 0 : rows}`);
  }
  for (const line of (outputs.window ?? '').split('\n')) if (line.includes('secure=')) lines.push(line);
  for (const [name, value] of Object.entries(outputs.props ?? {})) lines.push(`prop:${name}=${value}`);
  return lines.join('\n') + '\n';
}
