// The SETTINGS section of the man page, from the schema (pure).
import { plain, settingRows } from '../src/config/reference.js';

/** {"a": {"b": 1}} as a.b = 1, the schema's keys. */
export function flattenDefaults(tree: Record<string, unknown>, prefix = ''): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (value && typeof value === 'object' && !Array.isArray(value))
      for (const [k, v] of flattenDefaults(value as Record<string, unknown>, path)) out.set(k, v);
    else out.set(path, value);
  }
  return out;
}

/** roff text: a backslash doubled, a line's leading dot or quote escaped. */
function roff(text: string): string {
  return plain(text)
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/^([.'])/, '\\&$1');
}

export function manSettings(defaults: ReadonlyMap<string, unknown>): string {
  const lines = [
    '.SH SETTINGS',
    'Every setting comes from',
    '.IR /usr/lib/device-agent/config/default.json ,',
    'then',
    '.I /etc/device-agent/config.json',
    '(when it exists: the package passes it as',
    '.BR \\-\\-config ),',
    'then its variable (in',
    '.IR /etc/device-agent/agent.env ),',
    'later ones winning.',
    'The same list, with the variables read besides, is',
    '.IR /usr/share/doc/device-agent/configuration.md .',
  ];
  for (const row of settingRows(defaults)) {
    lines.push('.TP', `.BR ${row.key} " (" ${row.variable} )`);
    lines.push(`${roff(row.help)}${row.secret ? ' (masked in every log line)' : ''}.`);
    lines.push('.br', `Default: ${roff(row.default)}; values: ${roff(row.allowed)}.`);
  }
  return lines.join('\n') + '\n';
}
