import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { atPhoneLevel, checklistJson, exitCodeOf, formatChecklist, verdicts, type CheckItem } from '../../src/doctor/checklist.js';
import { addSecret, clearSecrets } from '../../src/log/redact.js';
import { ansiPaint } from '../../src/util/paint.js';

afterEach(() => clearSecrets());

const statuses = ['ok', 'warn', 'fail', 'unread'] as const;
const RANK = { fail: 0, warn: 1, unread: 2, ok: 3 };

describe('verdicts: one per check, what is wrong first', () => {
  it("merges a check's items into one verdict as bad as its worst, saying only what is not ok then", () => {
    const items: CheckItem[] = [
      { id: 'config', status: 'ok', finding: 'configuration valid (variables set: DEVICE_AGENT_BASE_URL)' },
      { id: 'adb.server', status: 'ok', finding: 'adb server up' },
      { id: 'config', status: 'fail', finding: 'cloud settings: username is required', advice: 'set it', config: true },
      { id: 'config', status: 'ok', finding: 'node id kept' },
    ];
    expect(verdicts(items)).toEqual([
      { id: 'config', status: 'fail', finding: 'cloud settings: username is required', advice: 'set it', config: true },
      { id: 'adb.server', status: 'ok', finding: 'adb server up' },
    ]);
  });

  it('keeps one phone apart from another under the same id, and orders failures, warnings, unread, then what is fine', () => {
    const checks = verdicts([
      { id: 'phone', phone: 'A', status: 'ok', finding: 'device A: device' },
      { id: 'phone.wear', phone: 'A', status: 'unread', finding: 'its shell was cut short after 15 s' },
      { id: 'phone', phone: 'B', status: 'warn', finding: 'device B: unauthorized', advice: 'allow' },
      { id: 'cloud', status: 'fail', finding: 'cloud rejected' },
      { id: 'phone.wear', phone: 'B', status: 'unread', finding: 'adb lists it unauthorized' },
    ]);
    expect(checks.map((c) => [c.id, c.phone, c.status])).toEqual([
      ['cloud', undefined, 'fail'],
      ['phone', 'B', 'warn'],
      ['phone.wear', 'A', 'unread'],
      ['phone.wear', 'B', 'unread'],
      ['phone', 'A', 'ok'],
    ]);
  });

  it('gives each (id, phone) one verdict, its worst status, in rank order, whatever the items (random lists)', () => {
    const item = fc.record({
      id: fc.constantFrom('config', 'cloud', 'phone', 'phone.wear'),
      phone: fc.option(fc.constantFrom('A', 'B'), { nil: undefined }),
      status: fc.constantFrom(...statuses),
      finding: fc.string(),
    });
    fc.assert(
      fc.property(fc.array(item, { maxLength: 12 }), (items: CheckItem[]) => {
        const checks = verdicts(items);
        const key = (c: CheckItem) => JSON.stringify([c.id, c.phone]);
        expect(new Set(checks.map(key)).size).toBe(checks.length);
        expect(new Set(items.map(key)).size).toBe(checks.length);
        for (const c of checks) expect(RANK[c.status]).toBe(Math.min(...items.filter((i) => key(i) === key(c)).map((i) => RANK[i.status])));
        for (let i = 1; i < checks.length; i++) expect(RANK[checks[i - 1]!.status]).toBeLessThanOrEqual(RANK[checks[i]!.status]);
      }),
    );
  });
});

describe('checklistJson (doctor --json, issue 61)', () => {
  it("gives each check its id and phone, status, finding and advice where not ok, the counts and the exit code, secrets masked; an unread check's finding says what and why", () => {
    addSecret('s3cret-key-value');
    const checks: CheckItem[] = [
      { id: 'cloud', status: 'fail', finding: 'cloud refused key s3cret-key-value', advice: 'check the key', config: true },
      { id: 'phone', phone: 'R58M123', status: 'warn', finding: 'device R58M123: unauthorized', advice: 'accept the prompt' },
      { id: 'phone.wear', phone: 'R58M123', status: 'unread', finding: 'adb lists it unauthorized' },
      { id: 'adb.server', status: 'ok', finding: 'adb server up', advice: 'never shown' },
    ];
    expect(JSON.parse(checklistJson(checks)) as unknown).toEqual({
      exitCode: 2,
      failed: 1,
      warnings: 1,
      unread: 1,
      checks: [
        { id: 'cloud', status: 'fail', finding: 'cloud refused key ***', advice: 'check the key', config: true },
        { id: 'phone', phone: 'R58M123', status: 'warn', finding: 'device R58M123: unauthorized', advice: 'accept the prompt' },
        { id: 'phone.wear', phone: 'R58M123', status: 'unread', finding: 'device R58M123: wear unread: adb lists it unauthorized' },
        { id: 'adb.server', status: 'ok', finding: 'adb server up' },
      ],
    });
    expect(JSON.parse(checklistJson([])) as unknown).toEqual({ exitCode: 0, failed: 0, warnings: 0, unread: 0, checks: [] });
  });
});

describe('formatChecklist', () => {
  it('prints what is wrong with its advice, what went unread, what is fine on one line, and the counts', () => {
    const text = formatChecklist(
      verdicts([
        { id: 'adb.server', status: 'ok', finding: 'adb server tcp:127.0.0.1:5037, version 41 (adb 1.0.41)', advice: 'never shown' },
        { id: 'adb.devices', status: 'warn', finding: 'devices: adb lists none', advice: 'connect a device' },
        { id: 'cloud', status: 'fail', finding: 'cloud rejected the credentials', advice: 'check the key' },
        { id: 'node-id', status: 'ok', finding: 'node id lab-7' },
      ]),
    );
    expect(text).toBe(
      [
        '[FAIL] cloud rejected the credentials',
        '       -> check the key',
        '[WARN] devices: adb lists none',
        '       -> connect a device',
        '[ OK ] adb server, node id',
        '1 failed, 1 warning of 4 checks.',
        '',
      ].join('\n'),
    );
  });

  it('says so when everything passed, the phones whose own line passed counted', () => {
    expect(
      formatChecklist(
        verdicts([
          { id: 'config', status: 'ok', finding: 'a' },
          { id: 'phone', phone: 'A', status: 'ok', finding: 'device A' },
          { id: 'phone.battery', phone: 'A', status: 'ok', finding: 'device A: battery 80 %' },
          { id: 'phone', phone: 'B', status: 'ok', finding: 'device B' },
          { id: 'status-endpoint', status: 'ok', finding: 'b' },
        ]),
      ),
    ).toBe('[ OK ] config, status endpoint, 2 phones\nAll 5 checks passed.\n');
  });

  it("puts a phone's checks unread for one reason on one line, and phones alike on one line, naming them", () => {
    const unread = (id: string, phone: string, why: string): CheckItem => ({ id, phone, status: 'unread', finding: why });
    const text = formatChecklist(
      verdicts([
        unread('phone.battery', 'U1', 'adb lists it unauthorized'),
        unread('phone.wear', 'U1', 'adb lists it unauthorized'),
        unread('phone.readiness', 'U1', 'adb lists it unauthorized'),
        unread('phone.wear', 'C1', 'its shell was cut short after 15 s'),
        unread('phone.readiness', 'C1', 'its shell was cut short after 15 s'),
        unread('phone.wear', 'C2', 'its shell was cut short after 15 s'),
        unread('phone.readiness', 'C2', 'its shell was cut short after 15 s'),
        unread('phone.battery', 'C2', 'its battery service printed no figures'),
      ]),
    );
    expect(text.split('\n')).toEqual([
      '[ -- ] device U1: battery, wear, readiness unread: adb lists it unauthorized',
      '[ -- ] wear, readiness unread on 2 phones (C1, C2): its shell was cut short after 15 s',
      '[ -- ] device C2: battery unread: its battery service printed no figures',
      '8 unread of 8 checks.',
      '',
    ]);
  });

  it('gives advice shared by the lines of a run once, under the last of them', () => {
    const text = formatChecklist(
      verdicts([
        { id: 'phone', phone: 'A', status: 'warn', finding: 'device A: unauthorized', advice: 'allow USB debugging' },
        { id: 'phone', phone: 'B', status: 'warn', finding: 'device B: unauthorized', advice: 'allow USB debugging' },
        { id: 'phone', phone: 'C', status: 'warn', finding: 'device C: offline', advice: 'replug it' },
      ]),
    );
    expect(text.split('\n').slice(0, 5)).toEqual([
      '[WARN] device A: unauthorized',
      '[WARN] device B: unauthorized',
      '       -> allow USB debugging',
      '[WARN] device C: offline',
      '       -> replug it',
    ]);
  });

  it('shows a control character from a device or the cloud as U+FFFD, never as a terminal command', () => {
    const text = formatChecklist([{ id: 'phone', status: 'fail', finding: 'device EVIL\u001b[2J: unauthorized\u0007', advice: 'accept the \u009b prompt' }]);
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(text).toContain('device EVIL\ufffd[2J: unauthorized\ufffd');
    const unread = formatChecklist([{ id: 'phone.wear', phone: 'EVIL\u001b[2J', status: 'unread', finding: 'cut\u0007' }]);
    expect(unread).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  });

  it('shows a bidi override or a zero-width character a device gave as U+FFFD, so it cannot reorder the line', () => {
    const text = formatChecklist([{ id: 'phone', status: 'warn', finding: 'device \u202Eevil\u2069 \u200Bunauthorized' }]);
    expect(text).not.toMatch(/\p{Cf}/u);
    expect(text).toContain('device \ufffdevil\ufffd \ufffdunauthorized');
  });

  it('keeps a multi-line error on its one line', () => {
    const text = formatChecklist([{ id: 'cloud', status: 'fail', finding: 'cloud: bad\n  at line two\r\n', advice: 'first\nsecond' }]);
    expect(text.split('\n').slice(0, 2)).toEqual(['[FAIL] cloud: bad at line two', '       -> first second']);
  });

  it('masks registered secrets and Basic credentials wherever they appear', () => {
    addSecret('s3cr3t-api-key');
    const text = formatChecklist([
      { id: 'cloud', status: 'fail', finding: 'cloud said: key s3cr3t-api-key is wrong', advice: 'header was Basic dXNlcjpzM2NyM3Q=' },
    ]);
    expect(text).not.toContain('s3cr3t-api-key');
    expect(text).not.toContain('dXNlcjpzM2NyM3Q=');
    expect(text).toContain('***');
  });

  it('keeps the layout whatever the checks hold: a line per check not ok, at most one for what is fine', () => {
    const item = fc.record({
      id: fc.constantFrom('config', 'cloud', 'phone.wear'),
      phone: fc.option(fc.string({ minLength: 1 }), { nil: undefined }),
      status: fc.constantFrom(...statuses),
      finding: fc.string(),
      advice: fc.option(fc.string(), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(item, { maxLength: 8 }), (items: CheckItem[]) => {
        const checks = verdicts(items);
        const lines = formatChecklist(checks).split('\n');
        expect(lines.pop()).toBe('');
        expect(lines.pop()!).toMatch(/checks(?: passed)?\.$/);
        const wrong = checks.filter((c) => c.status === 'fail' || c.status === 'warn').length;
        expect(lines.filter((l) => /^\[(WARN|FAIL)\]( |$)/.test(l))).toHaveLength(wrong);
        expect(lines.filter((l) => /^\[ OK \]( |$)/.test(l)).length).toBeLessThanOrEqual(1);
        expect(lines.filter((l) => l.startsWith('[ -- ] ')).length).toBeLessThanOrEqual(checks.filter((c) => c.status === 'unread').length);
        for (const line of lines) expect(line).toMatch(/^(\[( OK |WARN|FAIL| -- )\]( |$)| {7}-> )/);
      }),
    );
  });
});

describe('exitCodeOf', () => {
  it('is 1 only when a check failed; warnings and unread checks pass', () => {
    expect(exitCodeOf([])).toBe(0);
    expect(
      exitCodeOf([
        { id: 'a', status: 'ok', finding: '' },
        { id: 'b', status: 'warn', finding: '' },
        { id: 'c', status: 'unread', finding: '' },
      ]),
    ).toBe(0);
    expect(
      exitCodeOf([
        { id: 'a', status: 'ok', finding: '' },
        { id: 'b', status: 'fail', finding: '' },
      ]),
    ).toBe(1);
  });

  it('is 2 when the configuration failed, as for every command, whatever else failed', () => {
    expect(
      exitCodeOf([
        { id: 'a', status: 'fail', finding: '' },
        { id: 'config', status: 'fail', finding: '', config: true },
      ]),
    ).toBe(2);
    // A warning about the configuration (an unknown variable) does not make it 2.
    expect(exitCodeOf([{ id: 'config.variables', status: 'warn', finding: '', config: true }])).toBe(0);
  });
});

describe('atPhoneLevel', () => {
  const host: CheckItem = { id: 'adb.server', status: 'fail', finding: 'adb server tcp:127.0.0.1:5037: not reachable (ECONNREFUSED)' };
  const unauthorized: CheckItem = { id: 'phone', phone: 'R58M123', status: 'fail', finding: 'device R58M123: unauthorized', advice: 'accept the prompt' };
  const hot: CheckItem = { id: 'phone.battery', phone: 'R58M123', status: 'warn', finding: 'device R58M123: battery hot' };

  it('at warn, a phone that failed warns and the doctor passes: the host can still report the others', () => {
    const judged = atPhoneLevel([{ id: 'cloud', status: 'ok', finding: 'cloud' }, unauthorized, hot], 'warn');
    expect(judged.map((i) => i.status)).toEqual(['ok', 'warn', 'warn']);
    expect(judged[1]).toEqual({ ...unauthorized, status: 'warn' });
    expect(exitCodeOf(judged)).toBe(0);
    expect(formatChecklist(verdicts(judged))).toContain('[WARN] device R58M123: unauthorized\n       -> accept the prompt\n');
  });

  it("at warn, the host's own failures still fail", () => {
    expect(exitCodeOf(atPhoneLevel([host, unauthorized], 'warn'))).toBe(1);
    expect(exitCodeOf(atPhoneLevel([{ ...host, config: true }, unauthorized], 'warn'))).toBe(2);
  });

  it('at fail, every item keeps its status: the phone fails the doctor, a warning stays one', () => {
    const judged = atPhoneLevel([unauthorized, hot], 'fail');
    expect(judged).toEqual([unauthorized, hot]);
    expect(exitCodeOf(judged)).toBe(1);
  });

  it('never turns a host item into a warning, nor a warning into a failure (random lists)', () => {
    const item = fc.record({
      id: fc.constantFrom('phone', 'cloud'),
      status: fc.constantFrom(...statuses),
      finding: fc.string(),
      phone: fc.option(fc.string(), { nil: undefined }),
      config: fc.option(fc.boolean(), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(item, { maxLength: 10 }), (items: CheckItem[]) => {
        const warned = atPhoneLevel(items, 'warn');
        const failed = atPhoneLevel(items, 'fail');
        expect(failed).toEqual(items);
        items.forEach((before, i) => {
          const after = warned[i]!;
          expect(after.status).toBe(before.phone !== undefined && before.status === 'fail' ? 'warn' : before.status);
        });
        // The exit code at warn is what the host's items alone give.
        expect(exitCodeOf(warned)).toBe(exitCodeOf(items.filter((i) => i.phone === undefined)));
        expect(exitCodeOf(warned)).toBeLessThanOrEqual(exitCodeOf(failed));
      }),
    );
  });
});

describe('formatChecklist on a terminal', () => {
  it('paints the labels green, yellow and red, and nothing else', () => {
    const text = formatChecklist(
      verdicts([
        { id: 'a', status: 'ok', finding: 'a' },
        { id: 'b', status: 'warn', finding: 'b', advice: 'do b' },
        { id: 'c', status: 'fail', finding: 'c', advice: 'do c' },
        { id: 'd', status: 'unread', finding: 'cut' },
      ]),
      ansiPaint,
    );
    expect(text.split('\n')).toEqual([
      '\u001b[31m[FAIL]\u001b[39m c',
      '       -> do c',
      '\u001b[33m[WARN]\u001b[39m b',
      '       -> do b',
      '[ -- ] d unread: cut',
      '\u001b[32m[ OK ]\u001b[39m a',
      '1 failed, 1 warning, 1 unread of 4 checks.',
      '',
    ]);
  });
});
