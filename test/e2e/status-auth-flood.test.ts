// The status endpoint with basic authentication, asked by many clients with
// wrong passwords at once (issue 42): a real HTTP server on loopback and
// real clients. The budget of bcrypt checks itself is counted in
// test/status/auth-flood.test.ts; here, what a client beyond it gets.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { StatusServer } from '../../src/status/server.js';

const source = { health: () => ({ ok: true, reasons: [], brief: [] }), metrics: () => 'device_agent_up 1\n' };
const lines: string[] = [];
let status: StatusServer | undefined;

afterAll(async () => {
  await status?.stop();
});

function get(port: string, auth: string): Promise<{ status: number; retryAfter: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/metrics', auth }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the status endpoint asked by 50 clients with wrong passwords at once', () => {
  it('answers those beyond its budget of checks 429 with Retry-After, without checking them, and says so in one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'da-web-'));
    writeFileSync(join(dir, 'web.yml'), `basic_auth_users:\n  prometheus: ${bcrypt.hashSync('s3cret pass', 4)}\n`);
    const logger = createLogger({ level: 'info', pretty: false, destination: { write: (l: string) => lines.push(l) } });
    status = new StatusServer('127.0.0.1:0', source, logger, { webConfigFile: join(dir, 'web.yml') });
    const port = (await status.start())!.replace(/^127\.0\.0\.1:/, '');

    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => get(port, `prometheus:wrong-${i}`)));
    const busy = answers.filter((a) => a.status === 429);
    // A burst of 4 checks and 2 a second: however slowly the 50 arrive, most are beyond it.
    expect(busy.length).toBeGreaterThan(25);
    expect(answers.every((a) => a.status === 401 || a.status === 429)).toBe(true);
    expect(busy.every((a) => Number(a.retryAfter) >= 1)).toBe(true);
    expect(lines.filter((l) => l.includes('answered 429'))).toHaveLength(1);
  });
});
