// The probe table of docs/reference/device-info.md, rendered from the registry; a test keeps the
// page's copy equal to it (test/platforms/android/inventory/registry.test.ts).
import { PROBES } from './registry.js';

export const TABLE_BEGIN =
  '<!-- probe-table: generated from src/platforms/android/inventory/probes (UPDATE_README=1 npx vitest run test/platforms/android/inventory/registry.test.ts) -->';
export const TABLE_END = '<!-- /probe-table -->';

const TIER_TEXT = { connection: 'per connection', slow: 'slow', volatile: 'every report' } as const;

export function probeTable(): string {
  const rows = PROBES.map((probe) => {
    const command = typeof probe.command === 'string' ? probe.command : 'ping -c 1 -W 2 -w 3 HOST';
    const cells = [probe.section, TIER_TEXT[probe.tier], `\`${command.replace(/\|/g, '\\|')}\``, probe.fields.join(', '), probe.note];
    return `| ${cells.join(' | ')} |`;
  });
  return [TABLE_BEGIN, '| Section | Tier | Command | Fields | Notes |', '|---|---|---|---|---|', ...rows, TABLE_END].join('\n');
}
