import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { rulesWithRunbooks, runbookBase } from '../../../tools/monitoring/rules.js';

// Issue 61: each alert's runbook_url is built from a base, a setting of the
// rules' build (npm run rules -- --runbook-base URL), not a path to rewrite
// by hand. promtool checks the built file (test/monitoring/rules.e2e.test.ts).

const source = readFileSync(new URL('../../../deploy/monitoring/device-agent.rules.yml', import.meta.url), 'utf8');
type Rules = { groups: Array<{ rules: Array<{ alert?: string; annotations?: Record<string, string> }> }> };
const alertsOf = (text: string) => (parse(text) as Rules).groups.flatMap((g) => g.rules.filter((r) => r.alert));
const BASE = 'https://docs.example.org/device-agent/alerts.html';

describe('the rules built with a runbook base', () => {
  it("give every alert its runbook at the base with the alert's anchor, and change no other line", () => {
    const built = rulesWithRunbooks(source, BASE);
    const alerts = alertsOf(built);
    expect(alerts.length).toBeGreaterThan(15);
    for (const a of alerts) expect(a.annotations!.runbook_url, a.alert).toBe(`${BASE}#${a.alert!.toLowerCase()}`);
    const before = source.split('\n');
    const after = built.split('\n');
    expect(after).toHaveLength(before.length);
    const changed = after.flatMap((line, i) => (line === before[i] ? [] : [i]));
    expect(changed).toHaveLength(alerts.length);
    for (const i of changed) expect(before[i]).toMatch(/^\s+runbook_url: 'docs\/operations\/alerts\.md#[a-z]+'$/);
  });

  it('take a base with a quote as YAML reads it back', () => {
    const odd = "https://wiki.example.org/lab's/alerts";
    for (const a of alertsOf(rulesWithRunbooks(source, runbookBase(odd)))) expect(a.annotations!.runbook_url).toBe(`${odd}#${a.alert!.toLowerCase()}`);
  });

  it('refuse a base that is not an absolute http(s) URL, or has a fragment of its own', () => {
    expect(runbookBase(BASE)).toBe(BASE);
    expect(() => runbookBase('docs/operations/alerts.md')).toThrow(/not a URL/);
    expect(() => runbookBase('file:///usr/share/doc/alerts.md')).toThrow(/http or https/);
    expect(() => runbookBase(`${BASE}#top`)).toThrow(/no #fragment/);
  });

  it('refuse rules where an alert does not name its runbook by the path of this repository', () => {
    const broken = source.replace("runbook_url: 'docs/operations/alerts.md#deviceagentdown'", "runbook_url: 'https://elsewhere/x'");
    expect(() => rulesWithRunbooks(broken, BASE)).toThrow(/alert DeviceAgentDown: its runbook_url must be 'docs\/operations\/alerts.md#deviceagentdown'/);
  });
});
