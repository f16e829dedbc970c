import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudDouble } from '../cloud-double/cloud-double.js';
import { privateCa } from '../proxies/private-ca.js';
import { AdbServer } from '../sim/adb-server.js';
import { loadProfile, withSerial } from '../sim/profile.js';
import { SimDevice } from '../sim/sim-device.js';
import { writeClientCa } from '../support/client-ca.js';
import { type AgentProcess, daemonEnv, startAgent } from './agent-process.js';
import { systemTool } from '../support/system-tool.js';

// The Ansible role's post-check (deploy/ansible/roles/device_agent/tasks/
// postcheck.yml) run by the real ansible-playbook, on this host, against a
// real daemon whose status endpoint speaks TLS and asks basic
// authentication from a web configuration file (issue 33): b3b4d4c's
// post-check asked plain http without a password and could never pass.
// test/deploy/rollout.sh runs the whole role over SSH.

const roles = new URL('../../deploy/ansible/roles', import.meta.url).pathname;
const password = 'post-check pass 5e81';
const adb = new AdbServer();
const cloud = new CloudDouble();
const phone = new SimDevice({ profile: withSerial(loadProfile('pixel-8-pro'), 'ROLE0001') });
const dir = mkdtempSync(join(tmpdir(), 'da-role-postcheck-'));
let agent: AgentProcess;
let listen = '';
let version = '';
let ansiblePlaybook = '';

beforeAll(async () => {
  ansiblePlaybook = systemTool('ansible-playbook');
  const ca = privateCa('Role Post-check Test CA', ['localhost', '127.0.0.1']);
  writeFileSync(join(dir, 'server.crt'), ca.serverCert);
  writeFileSync(join(dir, 'server.key'), ca.serverKey);
  writeFileSync(join(dir, 'ca.pem'), ca.caCert);
  writeClientCa(dir);
  writeFileSync(
    join(dir, 'web.yml'),
    'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_ca_file: clients.crt\n' +
      `basic_auth_users:\n  prometheus: '${bcrypt.hashSync(password, 10)}'\n`,
  );
  await adb.start();
  await cloud.start();
  await adb.connect(await phone.start());
  agent = startAgent(
    ['run'],
    daemonEnv(adb.env, cloud, {
      DEVICE_AGENT_SCHEDULE: '0 0 * * *',
      DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0',
      DEVICE_AGENT_STATUS_WEB_CONFIG_FILE: join(dir, 'web.yml'),
    }),
  );
  listen = String((await agent.waitForLog((l) => l.msg === 'status endpoint listening (/healthz, /metrics)')).listen);
  await agent.waitForLog((l) => l.msg === 'report delivered');
  const metrics = await fetchMetrics();
  version = /^device_agent_build_info\{version="([^"]+)"/m.exec(metrics)![1]!;
}, 60_000);

afterAll(async () => {
  await agent?.stop();
  await adb.stop();
  await Promise.all([phone.stop(), cloud.stop()]);
});

/** /metrics as a scraper with the password reads it, only to learn the version the role waits for. */
function fetchMetrics(): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      `https://${listen}/metrics`,
      {
        ca: readFileSync(join(dir, 'ca.pem'), 'utf8'),
        cert: readFileSync(join(dir, 'prom.crt'), 'utf8'),
        key: readFileSync(join(dir, 'prom.key'), 'utf8'),
        auth: `prometheus:${password}`,
        servername: 'localhost',
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => (body += c));
        res.on('end', () => resolve(body));
      },
    );
    req.on('error', reject).end();
  });
}

/** The role's post-check alone, as rollout.yml includes it, with these variables. */
function postcheck(vars: Record<string, unknown>): Promise<{ code: number; output: string }> {
  const playbook = join(dir, 'postcheck.yml');
  writeFileSync(
    playbook,
    '- hosts: localhost\n  connection: local\n  gather_facts: false\n  tasks:\n' +
      '    - ansible.builtin.include_role:\n        name: device_agent\n        tasks_from: postcheck\n',
  );
  const extra = join(dir, `vars-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(
    extra,
    JSON.stringify({
      device_agent_version: version,
      device_agent_status_listen: listen,
      device_agent_settings: { DEVICE_AGENT_STATUS_WEB_CONFIG_FILE: join(dir, 'web.yml') },
      device_agent_postcheck_timeout: 4,
      device_agent_postcheck_doctor: false,
      ansible_python_interpreter: '/usr/bin/python3',
      ...vars,
    }),
  );
  return new Promise((resolve) => {
    execFile(
      ansiblePlaybook,
      ['-i', 'localhost,', '-v', '-e', `@${extra}`, playbook],
      { env: { ...process.env, ANSIBLE_ROLES_PATH: roles, ANSIBLE_NOCOLOR: '1', ANSIBLE_LOCALHOST_WARNING: 'false' }, timeout: 120_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
    );
  });
}

describe('the role post-check against a status endpoint with TLS, client certificates and basic authentication', () => {
  it('passes with the user and password, checking the certificate against its CA, and never prints the password', async () => {
    const run = await postcheck({
      device_agent_status_username: 'prometheus',
      device_agent_status_password: password,
      device_agent_status_ca_path: join(dir, 'ca.pem'),
      device_agent_status_client_cert_path: join(dir, 'prom.crt'),
      device_agent_status_client_key_path: join(dir, 'prom.key'),
    });
    expect(run.output).toContain('ok: [localhost]');
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/Wait for its first report to be delivered \(\/healthz\)/);
    expect(run.output).not.toContain(password);
  }, 150_000);

  it('fails with a wrong password, and prints neither password', async () => {
    const run = await postcheck({
      device_agent_status_username: 'prometheus',
      device_agent_status_password: 'not-the-password-0c3d',
      device_agent_status_client_cert_path: join(dir, 'prom.crt'),
      device_agent_status_client_key_path: join(dir, 'prom.key'),
      device_agent_postcheck_timeout: 2,
    });
    expect(run.code, run.output).not.toBe(0);
    expect(run.output).toMatch(/FAILED!/);
    expect(run.output).not.toContain('not-the-password-0c3d');
    expect(run.output).not.toContain(password);
  }, 150_000);

  it('fails without the client certificate the web config asks for, the password right', async () => {
    const run = await postcheck({
      device_agent_status_username: 'prometheus',
      device_agent_status_password: password,
      device_agent_status_ca_path: join(dir, 'ca.pem'),
      device_agent_postcheck_timeout: 2,
    });
    expect(run.code, run.output).not.toBe(0);
    expect(run.output).toMatch(/FAILED!/);
    expect(run.output).not.toContain(password);
  }, 150_000);
});
