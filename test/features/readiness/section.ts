import { readFileSync } from 'node:fs';
import { READINESS_SETTINGS } from '../../../src/platforms/android/inventory/probes/readiness.js';

export function fixture(name: string): string {
  return readFileSync(new URL(`fixtures/${name}`, import.meta.url), 'utf8');
}

interface Outputs {
  /** `settings list NAMESPACE` outputs, with the exit status (default 0). */
  lists?: Partial<Record<keyof typeof READINESS_SETTINGS, { text: string; status?: number }>>;
  /** `dumpsys window policy`. */
  window?: string;
  props?: Record<string, string>;
}

/** The readiness section as the device's script prints it from these command outputs: the `keep` filters applied as the shell does. */
export function readinessSection(outputs: Outputs): string {
  const lines: string[] = [];
  for (const [namespace, keys] of Object.entries(READINESS_SETTINGS)) {
    const list = outputs.lists?.[namespace as keyof typeof READINESS_SETTINGS];
    lines.push(`namespace:${namespace}`);
    if (list) for (const line of list.text.split('\n')) if ((keys as readonly string[]).some((k) => line.startsWith(`${k}=`))) lines.push(line);
    lines.push(`status:${namespace}=${list ? (list.status ?? 0) : 1}`);
  }
  for (const line of (outputs.window ?? '').split('\n')) if (line.includes('secure=')) lines.push(line);
  for (const [name, value] of Object.entries(outputs.props ?? {})) lines.push(`prop:${name}=${value}`);
  return lines.join('\n') + '\n';
}
