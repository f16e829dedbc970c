// The SETTINGS section of the man page, from the schema (pure).
import { plain, settingRows } from '../src/config/reference.js';

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
    'Every setting comes from its default (as below; the package keeps those it sets in',
    '.IR /usr/lib/device-agent/config/default.json ),',
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
