// npm run rules -- --runbook-base URL [--out FILE]: the alerting rules of
// deploy/monitoring/ with each alert's runbook_url under URL (tools/monitoring/rules.ts),
// on stdout or in FILE. Runs when loaded, as tools/cycles/main.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { rulesWithRunbooks, runbookBase } from './rules.js';

const RULES = fileURLToPath(new URL('../../../deploy/monitoring/device-agent.rules.yml', import.meta.url));

try {
  const { values } = parseArgs({ options: { 'runbook-base': { type: 'string' }, out: { type: 'string' } } });
  if (values['runbook-base'] === undefined) throw new Error('--runbook-base URL is required: where docs/operations/alerts.md is published');
  const text = rulesWithRunbooks(readFileSync(RULES, 'utf8'), runbookBase(values['runbook-base']));
  if (values.out === undefined) process.stdout.write(text);
  else writeFileSync(values.out, text);
} catch (error) {
  process.stderr.write(`rules: ${(error as Error).message}\n`);
  process.exitCode = 2;
}
