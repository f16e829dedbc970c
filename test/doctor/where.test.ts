import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CloudAuthError } from '../../src/cloud/errors.js';
import { adbServerFailed, cloudFailed, cloudSettingsFailed, settingFailed, variableWarning, type CloudTarget } from '../../src/doctor/findings.js';
import { whereOn } from '../../src/doctor/where.js';
import { AdbUnreachableError } from '../../src/platforms/android/adb/errors.js';
import { ADB_DOCTOR } from '../../src/platforms/android/doctor.js';
import { docPath, packaged, projectRoot } from '../../src/util/package.js';

// The doctor's advice where it runs: on a packaged host the files the package's operator edits (docs/install/package.md:
// /etc/device-agent/agent.env, /etc/device-agent/api-key) and the pages the package ships; in a checkout the variables and
// the checkout's docs/.

const target: CloudTarget = { baseUrl: 'https://cloud.example.com/v1', username: 'lab@example.com', keySource: '/etc/device-agent/api-key' };
const onPackage = whereOn(true);
const inCheckout = whereOn(false);
const unknown = { name: 'DEVICE_AGENT_BASEURL', message: 'DEVICE_AGENT_BASEURL is set but device-agent has no such variable' };

describe('the advice on a packaged host', () => {
  it('names the files the operator edits and the restart, not a variable to set in a shell', () => {
    const missing = cloudSettingsFailed(['username (DEVICE_AGENT_USERNAME) is required'], onPackage);
    expect(missing.advice).toBe(
      'set DEVICE_AGENT_BASE_URL and DEVICE_AGENT_USERNAME in /etc/device-agent/agent.env, and the API key in /etc/device-agent/api-key, ' +
        'then systemctl restart device-agent; the cloud is checked once they are set',
    );
    const rejected = cloudFailed(target, new CloudAuthError('GET /devices', 401), onPackage);
    expect(rejected.advice).toMatch(
      /^check DEVICE_AGENT_USERNAME in \/etc\/device-agent\/agent\.env .*the API key in \/etc\/device-agent\/api-key, then systemctl restart/,
    );
    expect(rejected.advice).not.toMatch(/DEVICE_AGENT_API_KEY/);
    expect(settingFailed(['probeConcurrency (DEVICE_AGENT_PROBE_CONCURRENCY): must be at least 1, got 0'], onPackage).advice).toBe(
      'fix the setting in /etc/device-agent/agent.env or /etc/device-agent/config.json, then systemctl restart device-agent; ' +
        'every setting, its variable and range are listed in /usr/share/doc/device-agent/configuration.md',
    );
    expect(variableWarning(unknown, onPackage).advice).toBe(
      'fix or remove DEVICE_AGENT_BASEURL in /etc/device-agent/agent.env; every variable is listed in /usr/share/doc/device-agent/configuration.md',
    );
    expect(adbServerFailed('tcp:localhost:5037', new AdbUnreachableError('tcp:localhost:5037', 'ECONNREFUSED'), ADB_DOCTOR, onPackage).advice).toMatch(
      /ADB_SERVER_SOCKET=tcp:HOST:PORT \(or ANDROID_ADB_SERVER_PORT\) in \/etc\/device-agent\/agent\.env/,
    );
  });

  it("in a checkout, names the variables and the checkout's reference, which exists", () => {
    expect(cloudSettingsFailed(['username (DEVICE_AGENT_USERNAME) is required'], inCheckout).advice).toMatch(
      /^set DEVICE_AGENT_BASE_URL and DEVICE_AGENT_USERNAME, and the API key in DEVICE_AGENT_API_KEY, DEVICE_AGENT_API_KEY_FILE or the api-key systemd credential;/,
    );
    expect(cloudFailed(target, new CloudAuthError('GET /devices', 401), inCheckout).advice).not.toMatch(/agent\.env|systemctl/);
    expect(inCheckout.reference).toBe(`${projectRoot}/docs/reference/configuration.md`);
    expect(existsSync(inCheckout.reference)).toBe(true);
  });
});

describe('docPath', () => {
  it('is the page the package ships on a packaged host, the checkout page elsewhere; this run is a checkout', () => {
    expect(docPath('docs/install/iphones.md', true)).toBe('/usr/share/doc/device-agent/iphones.md');
    expect(docPath('docs/install/iphones.md', false)).toBe(`${projectRoot}/docs/install/iphones.md`);
    expect(packaged).toBe(false);
    expect(whereOn()).toEqual(inCheckout);
  });
});
