// The settings reference, rendered from the schema and the defaults (loadDefaults): docs/reference/configuration.md is this
// text (a test keeps it so), and the command help shows the same defaults. Pure.
import { envName, formerEnvName, MOVED_SETTINGS, settingFields, type Field } from './schema.js';
import { otherVariables, type PlatformVariables } from './variables.js';

export const REFERENCE_PATH = 'docs/reference/configuration.md';

const TYPE_TEXT = { string: 'text', integer: 'whole number', boolean: '`true` or `false`', 'string[]': 'list' };

export function settingRows(defaults: ReadonlyMap<string, unknown>) {
  return settingFields.map(([key, field]) => ({
    key,
    variable: envName(key),
    /** The variable's old spelling, still read with a warning. */
    formerVariable: formerEnvName(key),
    default: defaultText(field, defaults.get(key)),
    allowed: allowedText(field),
    help: field.help,
    secret: field.secret === true,
  }));
}

/** The default of one setting, else what unset means. */
export function defaultText(field: Field, value: unknown) {
  const empty = value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
  if (empty) return field.unset ?? (Array.isArray(value) ? 'none (empty list)' : 'none');
  if (Array.isArray(value)) return value.map((v) => `\`${String(v)}\``).join(', ');
  const scalar = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
  return `\`${scalar ? String(value) : JSON.stringify(value)}\``;
}

function allowedText(field: Field) {
  if (field.oneOf) return field.oneOf.map((v) => `\`${v}\``).join(', ');
  if (field.type === 'integer') {
    if (field.min !== undefined && field.max !== undefined) return `${field.min} to ${field.max}`;
    if (field.min !== undefined) return `at least ${field.min}`;
    if (field.max !== undefined) return `at most ${field.max}`;
  }
  const text = field.format ?? TYPE_TEXT[field.type];
  return field.type === 'string[]' ? `${text}, comma-separated in the variable` : text;
}

/** Markdown without its backticks, for a terminal. */
export function plain(text: string) {
  return text.replace(/`/g, '');
}

/** `platforms`: the platforms' own variables and sections (src/agent/platforms.ts), listed before the others. */
export function configurationReference(defaults: ReadonlyMap<string, unknown>, platforms: PlatformVariables) {
  const rows = settingRows(defaults);
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  const renamed = rows.filter((r) => r.formerVariable);
  const lines = [
    "<!-- Generated from src/config/schema.ts (with the features' settings.ts), src/config/variables.ts and config/default.json; do not edit by hand.",
    '     Regenerate: UPDATE_DOCS=1 npx vitest run test/config/reference.test.ts -->',
    '# Configuration reference',
    '',
    "Every setting comes from its default (a feature's in its `src/features/NAME/settings.ts`, the others in `config/default.json`),",
    'then the file given with `--config PATH` (JSON, the same keys,',
    'nested as below: `{"health": {"batteryHotCelsius": 45}}`), then its environment variable, later ones winning.',
    '`--log-level` and `--log-format` win over all of them.',
    '',
    'A variable is `DEVICE_AGENT_` + the key in UPPER_SNAKE case, nested keys joined with `_`; a word starts at a',
    'capital followed by a small letter, so a unit stays whole (`health.storageMinFreeMiB` is',
    '`DEVICE_AGENT_HEALTH_STORAGE_MIN_FREE_MIB`). In a variable, a list is comma-separated and a boolean is',
    '`true`, `false`, `1`, `0`, `yes`, `no`, `on` or `off`; an empty variable counts as unset.',
    '',
    'Nothing passes silently: an unknown key in a file is an error, an unknown `DEVICE_AGENT_*` variable a warning,',
    'each with the closest known name; every bad setting is reported in one run, and the command exits 2.',
    '`device-agent doctor` shows the variables it reads and warns about the others.',
    '',
    '## Settings',
    '',
    '| key | variable | default | values | meaning |',
    '|---|---|---|---|---|',
    ...rows.map(
      (r) => `| \`${r.key}\` | \`${r.variable}\` | ${cell(r.default)} | ${cell(r.allowed)} | ${cell(r.help)}${r.secret ? ' (masked in every log line)' : ''} |`,
    ),
    '',
  ];
  if (renamed.length) {
    lines.push(
      '## Renamed variables',
      '',
      'Still read, with a warning at every start; when both spellings are set, the new one wins.',
      '',
      '| old name | new name |',
      '|---|---|',
      ...renamed.map((r) => `| \`${r.formerVariable}\` | \`${r.variable}\` |`),
      '',
    );
  }
  lines.push(
    '## Moved settings',
    '',
    'Still read under the old key (in a settings file) or its variable, with a warning at every start; when both are set, the new one wins.',
    '',
    '| old key | new key |',
    '|---|---|',
    ...Object.entries(MOVED_SETTINGS).map(([old, now]) => `| \`${old}\` (\`${envName(old)}\`) | \`${now}\` (\`${envName(now)}\`) |`),
    '',
  );
  lines.push(
    '## Other variables',
    '',
    'Read besides the settings, by the agent or by the container image.',
    '',
    '| variable | read by | meaning |',
    '|---|---|---|',
    ...settingFields.flatMap(([key, field]) =>
      (field.envDefault ?? []).map((name) => `| \`${name}\` | agent | the default of \`${key}\` when neither a file nor \`${envName(key)}\` sets it |`),
    ),
    ...Object.entries({ ...platforms.variables, ...otherVariables }).map(([name, v]) => `| \`${name}\` | ${v.readBy} | ${cell(v.help)} |`),
    '',
    ...platforms.sections,
    '## Secrets',
    '',
    'The settings marked as masked, and the `Authorization` header, are masked in every log line (by path and by content,',
    'errors of the HTTP stack included) and never printed.',
    '',
  );
  return lines.join('\n');
}
