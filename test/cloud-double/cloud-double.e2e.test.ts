import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CloudDouble, DEFAULT_API_KEY, DEFAULT_USERNAME } from './cloud-double.js';
import { sampleDevice, sampleReport } from './sample.js';

const auth = `Basic ${Buffer.from(`${DEFAULT_USERNAME}:${DEFAULT_API_KEY}`).toString('base64')}`;

let double: CloudDouble;
let base: string;

beforeEach(async () => {
  double = new CloudDouble();
  base = await double.start();
});

afterEach(async () => {
  await double.stop();
});

function put(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}/devices`, {
    method: 'PUT',
    headers: { Authorization: auth, 'Content-Type': 'application/json', Accept: 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function get(path: string): Promise<Response> {
  return fetch(`${base}${path}`, { headers: { Authorization: auth, Accept: 'application/json' } });
}

describe('CloudDouble basics', () => {
  it('listens on loopback and answers under the v1 root', () => {
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  });

  it('rejects missing or wrong credentials with 401 and a Basic challenge', async () => {
    const none = await fetch(`${base}/devices`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Basic/);
    const wrong = await fetch(`${base}/devices`, {
      headers: { Authorization: `Basic ${Buffer.from(`${DEFAULT_USERNAME}:nope`).toString('base64')}` },
    });
    expect(wrong.status).toBe(401);
  });

  it('accepts the email in place of the username when configured', async () => {
    await double.stop();
    double = new CloudDouble({ username: 'lab-bot', email: 'lab-bot@example.test', apiKey: 'k-123456' });
    base = await double.start();
    const as = (who: string) => fetch(`${base}/devices`, { headers: { Authorization: `Basic ${Buffer.from(`${who}:k-123456`).toString('base64')}` } });
    expect((await as('lab-bot')).status).toBe(200);
    expect((await as('lab-bot@example.test')).status).toBe(200);
    expect((await as('someone@example.test')).status).toBe(401);
  });

  it('accepts a valid report, stores it and lists it through the GET endpoints', async () => {
    const res = await put(sampleReport([sampleDevice('AAA'), sampleDevice('BBB', { status: 'UNPLUGGED' })]));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ failedDevices: [] });

    const list = (await (await get('/devices')).json()) as { privateDevices: { udid: string; id: number; isOnline: boolean }[] };
    expect(list.privateDevices.map((d) => [d.udid, d.isOnline])).toEqual([
      ['AAA', true],
      ['BBB', false],
    ]);

    const one = (await (await get('/devices/AAA')).json()) as Record<string, unknown>;
    expect(one).toMatchObject({ udid: 'AAA', modelName: 'SM-G991B', platformName: 'ANDROID', resolution: { width: 1080, height: 2400 } });
    expect(Number.isInteger(one.id)).toBe(true);

    const status = await (await get(`/devices/${String(one.id)}/status`)).json();
    expect(status).toEqual({ isBooked: false, isOnline: true });
    expect((await get('/devices/UNKNOWN')).status).toBe(404);

    const online = (await (await get('/devices?isOnline=false')).json()) as { privateDevices: { udid: string }[] };
    expect(online.privateDevices.map((d) => d.udid)).toEqual(['BBB']);
  });

  it('marks a device offline when its node stops reporting it', async () => {
    await put(sampleReport([sampleDevice('AAA'), sampleDevice('BBB')]));
    await put(sampleReport([sampleDevice('AAA')]));
    expect(double.store.stored('BBB')?.isOnline).toBe(false);
    expect(double.store.stored('AAA')?.isOnline).toBe(true);
    expect(double.store.latestReport('node-1')?.devices).toHaveLength(1);
  });

  it('answers 400 listing each violated field', async () => {
    const body = sampleReport() as unknown as { machine: Record<string, unknown>; devices: Record<string, unknown>[] };
    body.machine.freemem = 12.5;
    delete body.machine.hostname;
    body.devices[0]!.orientation = '0';
    body.devices[0]!.resolution = { width: 1080, height: 2400, logical: { width: 1.5, height: 2400 } };
    body.devices[0]!.platformVerison = '13';
    const res = await put(body);
    expect(res.status).toBe(400);
    const answer = (await res.json()) as { violations: { path: string }[] };
    expect(answer.violations.map((v) => v.path).sort()).toEqual([
      'devices[0].orientation',
      'devices[0].platformVerison',
      'devices[0].resolution.logical.width',
      'machine.freemem',
      'machine.hostname',
    ]);
    expect(double.store.all()).toHaveLength(0);
  });

  it('rejects a body that is not JSON, and a wrong content type', async () => {
    expect((await put('{"nodeId":')).status).toBe(400);
    expect((await put(sampleReport(), { 'Content-Type': 'text/plain' })).status).toBe(415);
  });

  it('answers programmed failedDevices and does not store those devices', async () => {
    double.failDevices([{ udid: 'BBB', message: 'missing required capability: platformVersion' }]);
    const res = await put(sampleReport([sampleDevice('AAA'), sampleDevice('BBB')]));
    expect(await res.json()).toEqual({ failedDevices: [{ udid: 'BBB', message: 'missing required capability: platformVersion' }] });
    expect(double.store.stored('BBB')).toBeUndefined();
    expect(double.store.stored('AAA')).toBeDefined();
  });

  it('answers failedDevices the report did not carry when told to, from a list or per report', async () => {
    double.answerFailedDevices([{ udid: 'ELSEWHERE', message: 'belongs to another node' }]);
    const res = await put(sampleReport([sampleDevice('AAA')]));
    expect(await res.json()).toEqual({ failedDevices: [{ udid: 'ELSEWHERE', message: 'belongs to another node' }] });
    expect(double.store.stored('AAA')).toBeDefined();
    let n = 0;
    double.answerFailedDevices(() => [{ udid: `R${n++}`, message: 'x' }]);
    await put(sampleReport([sampleDevice('AAA')]));
    expect(await (await put(sampleReport([sampleDevice('AAA')]))).json()).toEqual({ failedDevices: [{ udid: 'R1', message: 'x' }] });
    double.resetFaults();
    expect(await (await put(sampleReport([sampleDevice('AAA')]))).json()).toEqual({ failedDevices: [] });
  });

  it('fails a whole report holding NUL or a lone surrogate with 500, as a cloud storing text in PostgreSQL does', async () => {
    for (const name of ['Lab\u0000phone', 'Lab\ud800phone']) {
      const res = await put(sampleReport([sampleDevice('AAA'), sampleDevice('BBB', { deviceName: name })]));
      expect(res.status).toBe(500);
      expect(double.store.stored('AAA')).toBeUndefined();
    }
    expect((await put(sampleReport([sampleDevice('AAA', { deviceName: 'Lab\ufffdphone\u0001' })]))).status).toBe(200);
    await double.stop();
    double = new CloudDouble({ postgresText: false });
    base = await double.start();
    expect((await put(sampleReport([sampleDevice('AAA', { deviceName: 'Lab\u0000phone' })]))).status).toBe(200);
  });

  it('fails devices that miss a configured required capability', async () => {
    await double.stop();
    double = new CloudDouble({ requiredCapabilities: ['cpuArchitecture'] });
    base = await double.start();
    const bare = sampleDevice('CCC');
    delete bare.cpuArchitecture;
    const res = await put(sampleReport([bare, sampleDevice('DDD')]));
    expect(await res.json()).toEqual({ failedDevices: [{ udid: 'CCC', message: 'missing required capability: cpuArchitecture' }] });
  });

  it('records every request with its parsed body, headers and receive time', async () => {
    const before = Date.now();
    await put(sampleReport());
    await get('/devices?udid=AAA');
    expect(double.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['PUT /devices', 'GET /devices']);
    const [first, second] = double.requests;
    expect(first?.headers.authorization).toBe(auth);
    expect((first?.body as { nodeId: string }).nodeId).toBe('node-1');
    expect(first?.receivedAt).toBeGreaterThanOrEqual(before);
    expect(second?.query.get('udid')).toBe('AAA');
    expect(double.putRequests()).toHaveLength(1);
    expect(double.acceptedReports()).toHaveLength(1);
  });

  it('sends a Date header shifted by the configured clock offset', async () => {
    double.setClockOffset(3_600_000);
    const res = await get('/devices');
    const date = Date.parse(res.headers.get('date') ?? '');
    // One hour ahead, give or take the second-granularity of HTTP dates and test scheduling.
    expect(Math.abs(date - (Date.now() + 3_600_000))).toBeLessThan(5_000);
  });
});

describe('CloudDouble bookings', () => {
  it('answers isBooked per device as the test switches it, reported or not, and counts the status requests', async () => {
    await put(sampleReport([sampleDevice('AAA'), sampleDevice('BBB')]));
    const status = async (id: string) => (await (await get(`/devices/${id}/status`)).json()) as { isBooked: boolean; isOnline: boolean };
    expect(await status('AAA')).toEqual({ isBooked: false, isOnline: true });
    double.setBooked('AAA', true);
    expect(await status('AAA')).toEqual({ isBooked: true, isOnline: true });
    expect(await status('BBB')).toEqual({ isBooked: false, isOnline: true });
    double.setBooked('NEVERSEEN', true);
    expect(await status('NEVERSEEN')).toEqual({ isBooked: true, isOnline: false });
    double.setBooked('AAA', false);
    expect(await status('AAA')).toEqual({ isBooked: false, isOnline: true });
    double.setBooked('AAA', undefined);
    expect((await get('/devices/CCC/status')).status).toBe(404);
    expect(double.statusRequests('AAA')).toHaveLength(3);
    expect(double.statusRequests()).toHaveLength(6);
    double.resetFaults();
    expect((await get('/devices/NEVERSEEN/status')).status).toBe(404);
  });

  it('applies a fault only to the paths it names', async () => {
    double.setBooked('AAA', true);
    double.failNext({ status: 503, path: /\/status$/ });
    expect((await get('/devices')).status).toBe(200);
    expect((await get('/devices/AAA/status')).status).toBe(503);
    expect((await get('/devices/AAA/status')).status).toBe(200);
  });
});

describe('CloudDouble faults', () => {
  it('answers a status for the next N requests, then recovers', async () => {
    double.failNext({ status: 503, times: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await put(sampleReport())).status);
    expect(statuses).toEqual([503, 503, 200]);
    expect(double.acceptedReports()).toHaveLength(1);
  });

  it('sends Retry-After in seconds or as an HTTP-date', async () => {
    const when = new Date(Date.now() + 120_000);
    double.failNext({ status: 429, retryAfter: 7 }).failNext({ status: 429, retryAfter: when });
    const a = await put(sampleReport());
    const b = await put(sampleReport());
    expect(a.status).toBe(429);
    expect(a.headers.get('retry-after')).toBe('7');
    expect(b.headers.get('retry-after')).toBe(when.toUTCString());
  });

  it('applies a fault only to the given method', async () => {
    double.failNext({ status: 500, method: 'PUT' });
    expect((await get('/devices')).status).toBe(200);
    expect((await put(sampleReport())).status).toBe(500);
  });

  it('keeps a persistent fault until resetFaults', async () => {
    double.failNext({ status: 502, times: Infinity });
    expect((await get('/devices')).status).toBe(502);
    expect((await get('/devices')).status).toBe(502);
    double.resetFaults();
    expect((await get('/devices')).status).toBe(200);
  });

  it('resets the connection without answering', async () => {
    double.resetConnectionNext(1);
    await expect(put(sampleReport())).rejects.toThrow();
    expect((await put(sampleReport())).status).toBe(200);
    expect(double.putRequests()[0]?.answer).toEqual({ fault: 'reset', status: undefined });
  });

  it('answers HTML, garbage JSON and empty bodies with 200', async () => {
    double.answerHtmlNext().answerGarbageNext().answerEmptyNext();
    const html = await put(sampleReport());
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await html.text()).toMatch(/^<!DOCTYPE html>/);
    const garbage = await put(sampleReport());
    await expect(garbage.json()).rejects.toThrow(SyntaxError);
    const empty = await put(sampleReport());
    expect(empty.status).toBe(200);
    expect(await empty.text()).toBe('');
    expect(double.store.all()).toHaveLength(0);
  });

  it('cuts a body off after the headers', async () => {
    double.cutBodyNext();
    const res = await put(sampleReport());
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
    expect((await put(sampleReport())).status).toBe(200);
  });

  it('delays the headers so that a client timeout fires', async () => {
    double.delayNext(2_000);
    await expect(fetch(`${base}/devices`, { headers: { Authorization: auth }, signal: AbortSignal.timeout(100) })).rejects.toThrow();
    expect((await get('/devices')).status).toBe(200);
  });

  it('trickles the body in small chunks', async () => {
    double.setTrickle(5, 4);
    const res = await put(sampleReport());
    const reader = res.body!.getReader();
    let chunks = 0;
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks += 1;
      text += Buffer.from(value).toString('utf8');
    }
    expect(JSON.parse(text)).toEqual({ failedDevices: [] });
    expect(chunks).toBeGreaterThan(1);
  });
});

describe('waitForPut', () => {
  it('resolves with a PUT that arrives later', async () => {
    const waiting = double.waitForPut((r) => (r.body as { nodeId?: string }).nodeId === 'node-2', 5_000);
    await put(sampleReport([], 'node-1'));
    await put(sampleReport([], 'node-2'));
    const hit = await waiting;
    expect(hit.answer?.status).toBe(200);
    expect((hit.body as { nodeId: string }).nodeId).toBe('node-2');
  });

  it('rejects when none matches in time, naming what was seen', async () => {
    double.failNext({ status: 503 });
    await put(sampleReport());
    await expect(double.waitForPut((r) => r.answer?.status === 200, 50)).rejects.toThrow(/seen: \[status\]/);
  });
});
