// The alerting rules as a Prometheus loads them, with each alert's
// runbook_url built from a base: where the operator publishes
// docs/operations/alerts.md (the repository's own page, a wiki, an
// intranet copy). The rules file in deploy/monitoring/ names each runbook
// by its path in this repository; this writes the same file with every such
// path replaced by the base, and nothing else changed. Pure: text in, text out.
import { parse } from 'yaml';

/** How deploy/monitoring/device-agent.rules.yml names each runbook: this path, then the alert's anchor. */
export const RUNBOOK_PATH = 'docs/operations/alerts.md';

/** A base runbook_url can start with: an absolute http(s) URL, without a fragment (each alert adds its own). */
export function runbookBase(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(
      `--runbook-base ${text}: not a URL; give where docs/operations/alerts.md is published, e.g. https://docs.example.org/device-agent/alerts.html`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new Error(`--runbook-base ${text}: an http or https URL, as Alertmanager and Grafana link it`);
  if (url.hash !== '' || text.includes('#')) throw new Error(`--runbook-base ${text}: no #fragment: each alert adds its own (#deviceagentdown)`);
  return text;
}

interface RulesFile {
  groups?: Array<{ rules?: Array<{ alert?: string; annotations?: { runbook_url?: string } }> }>;
}

/**
 * The rules with every alert's runbook_url at `base` (checked by
 * runbookBase). Throws when an alert's runbook_url is not the path this
 * repository gives it: a rule added without one would go out unlinked.
 */
export function rulesWithRunbooks(rules: string, base: string): string {
  const alerts = ((parse(rules) as RulesFile).groups ?? []).flatMap((g) => (g.rules ?? []).filter((r) => r.alert !== undefined));
  for (const a of alerts) {
    const anchor = a.alert!.toLowerCase();
    if (a.annotations?.runbook_url !== `${RUNBOOK_PATH}#${anchor}`)
      throw new Error(`alert ${a.alert}: its runbook_url must be '${RUNBOOK_PATH}#${anchor}', got ${JSON.stringify(a.annotations?.runbook_url)}`);
  }
  let replaced = 0;
  const out = rules.replace(/^(\s+runbook_url: )'docs\/operations\/alerts\.md(#[a-z0-9]+)'$/gm, (_line, key: string, anchor: string) => {
    replaced++;
    return `${key}'${base.replace(/'/g, "''")}${anchor}'`;
  });
  if (replaced !== alerts.length)
    throw new Error(`${alerts.length} alerts but ${replaced} runbook_url lines of the form runbook_url: '${RUNBOOK_PATH}#anchor'`);
  return out;
}
