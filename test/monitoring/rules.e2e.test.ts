import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { systemTool } from '../support/system-tool.js';

// The alerting rules pass promtool's own checks and unit tests
// (device-agent.rules.test.yml beside this file, and device-agent.rules.days.test.yml
// for the rules that read a day), and every alert has a
// runbook, a link to it, and unit tests both ways: when it fires and when it
// must not.

const root = fileURLToPath(new URL('../../', import.meta.url));
const RULES = 'deploy/monitoring/device-agent.rules.yml';
const UNIT_TESTS = ['test/monitoring/device-agent.rules.test.yml', 'test/monitoring/device-agent.rules.days.test.yml'];
const RUNBOOKS = 'docs/operations/alerts.md';

function promtool(...args: string[]): Promise<{ code: number; output: string }> {
  const tool = systemTool(process.env.PROMTOOL_BIN ?? 'promtool');
  return new Promise((resolve) => {
    execFile(tool, args, { cwd: root, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, output: stdout + stderr });
    });
  });
}

const rulesText = readFileSync(root + RULES, 'utf8');
const alerts = [...rulesText.matchAll(/^\s*- alert: (\S+)$/gm)].map((m) => m[1]!);
const records = [...rulesText.matchAll(/^\s*- record: (\S+)$/gm)].map((m) => m[1]!);

describe('alerting rules', () => {
  it('pass promtool check rules (syntax, PromQL, templates), and the example configuration promtool check config', async () => {
    const rules = await promtool('check', 'rules', RULES);
    expect(rules.output).toContain(`SUCCESS: ${alerts.length + records.length} rules found`);
    expect(rules.code).toBe(0);
    const config = await promtool('check', 'config', 'deploy/monitoring/prometheus.example.yml');
    expect(config.code, config.output).toBe(0);
  });

  it('built with a runbook base (npm run rules), pass promtool check rules and link every runbook under it (issue 61)', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'rules-')), 'device-agent.rules.yml');
    const base = 'https://docs.example.org/device-agent/alerts.html';
    const built = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile(process.execPath, ['dist/tools/monitoring/rules-cli.js', '--runbook-base', base, '--out', out], { cwd: root }, (err, _o, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr }),
      ),
    );
    expect(built.code, built.stderr).toBe(0);
    const check = await promtool('check', 'rules', out);
    expect(check.output).toContain(`SUCCESS: ${alerts.length + records.length} rules found`);
    const links = [...readFileSync(out, 'utf8').matchAll(/runbook_url: '([^']*)'/g)].map((m) => m[1]);
    expect(links.sort()).toEqual(alerts.map((a) => `${base}#${a.toLowerCase()}`).sort());
    // Without a base it says what it needs, as a usage error.
    const bare = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile(process.execPath, ['dist/tools/monitoring/rules-cli.js'], { cwd: root }, (err, _o, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr }),
      ),
    );
    expect(bare).toMatchObject({ code: 2, stderr: expect.stringMatching(/--runbook-base URL is required/) });
  });

  it('pass their unit tests (promtool test rules)', async () => {
    const { code, output } = await promtool('test', 'rules', ...UNIT_TESTS);
    expect(output.match(/SUCCESS/g)).toHaveLength(UNIT_TESTS.length);
    expect(code, output).toBe(0);
  });

  it('include what issues 26, 43, 44, 61, 63 and 72 ask for', () => {
    expect(alerts.sort()).toEqual(
      [
        'DeviceAgentDown', // an agent that stopped reporting ...
        'DeviceAgentNotReporting',
        'DeviceAgentReportsFailing', // ... or whose reports keep failing
        'DeviceAgentAdbDown',
        'DeviceAgentAdbServerDown', // issue 61: an adb server that does not answer, named as the server's
        'DeviceAgentFailedDevices',
        'DeviceAgentDeviceDown',
        'DeviceAgentDeviceRecoveredRepeatedly',
        'DeviceAgentRecoveryFailing',
        'DeviceAgentBatteryHot',
        'DeviceAgentHostHot', // issue 43: several phones hot together are the room or the host
        'DeviceAgentBatteryLow',
        'DeviceAgentStorageFull',
        'DeviceAgentPhoneWorn', // issue 64: wear past its limit ...
        'DeviceAgentPhoneWearing', // ... or forecast to pass it within two weeks
        'DeviceAgentDevicesDropped',
        'DeviceAgentPhoneNotReady', // issue 44: drift of readiness ...
        'DeviceAgentPhoneUpdated',
        'DeviceAgentPhoneOffList', // a phone on its port and off its list that readiness does not judge (a bootloader, another adb server, an iPhone)
        'DeviceAgentUsbPortFailing', // ... and issue 43: the USB layer
        'DeviceAgentUsbHubFailing',
        'DeviceAgentUsbControllerFailing',
        'DeviceAgentInServiceLow', // issue 63: in-service time, a host's ...
        'DeviceAgentPortOutMoreThanHub', // ... and a port's against its hub's
        'DeviceAgentOutOfDate', // issue 72: a host left behind by an upgrade of the lab ...
        'DeviceAgentIosTunnelStale', // ... and an iPhone's tunnel that leads nowhere
      ].sort(),
    );
  });

  const runbooks = readFileSync(root + RUNBOOKS, 'utf8');
  const unitTests = UNIT_TESTS.map((f) => readFileSync(root + f, 'utf8')).join('\n');
  // Each rule's text: from its "- alert:" line to the next rule.
  const ruleText = (alert: string): string => {
    const start = rulesText.indexOf(`- alert: ${alert}\n`);
    const next = rulesText.slice(start + 1).search(/\n\s*- (alert|record): |\n {2}- name: /);
    return next < 0 ? rulesText.slice(start) : rulesText.slice(start, start + 1 + next);
  };

  it.each(alerts)('%s has a runbook section, links it, and has a severity', (alert) => {
    const text = ruleText(alert);
    expect(text).toContain(`runbook_url: '${RUNBOOKS}#${alert.toLowerCase()}'`);
    expect(text).toMatch(/severity: (critical|warning)\n/);
    // GitHub's anchor of "## DeviceAgentDown" is #deviceagentdown; the section is one paragraph or more.
    const section = runbooks.split(/^## /m).find((s) => s.startsWith(`${alert}\n`));
    expect(section, `no "## ${alert}" in ${RUNBOOKS}`).toBeDefined();
    expect(section!.trim().split('\n').length).toBeGreaterThan(3);
  });

  it.each(alerts)('%s has a unit test where it fires and one where it must not', (alert) => {
    const cases = [...unitTests.matchAll(new RegExp(`alertname: ${alert}\\n\\s+exp_alerts:(.*)\\n(\\s+- exp_labels)?`, 'g'))];
    expect(
      cases.some((c) => c[1] === ' []'),
      `no case where ${alert} must not fire`,
    ).toBe(true);
    expect(
      cases.some((c) => c[1] === '' && c[2] !== undefined),
      `no case where ${alert} fires`,
    ).toBe(true);
  });
});
