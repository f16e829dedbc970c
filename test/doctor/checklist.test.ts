import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { atPhoneLevel, checklistJson, exitCodeOf, formatChecklist, type CheckItem } from '../../src/doctor/checklist.js';
import { addSecret, clearSecrets } from '../../src/log/redact.js';
import { ansiPaint } from '../../src/util/paint.js';

afterEach(() => clearSecrets());

describe('checklistJson (doctor --json, issue 61)', () => {
  it('gives each item its status, finding and advice where not ok, whose it is, the counts and the exit code, secrets masked', () => {
    addSecret('s3cret-key-value');
    const items: CheckItem[] = [
      { status: 'ok', finding: 'adb server up', advice: 'never shown' },
      { status: 'warn', finding: 'device R58M123: unauthorized', advice: 'accept the prompt', phone: true },
      { status: 'fail', finding: 'cloud refused key s3cret-key-value', advice: 'check the key', config: true },
    ];
    const parsed = JSON.parse(checklistJson(items)) as unknown;
    expect(parsed).toEqual({
      exitCode: 2,
      failed: 1,
      warnings: 1,
      checks: [
        { status: 'ok', finding: 'adb server up' },
        { status: 'warn', finding: 'device R58M123: unauthorized', advice: 'accept the prompt', phone: true },
        { status: 'fail', finding: 'cloud refused key ***', advice: 'check the key', config: true },
      ],
    });
    expect(JSON.parse(checklistJson([])) as unknown).toEqual({ exitCode: 0, failed: 0, warnings: 0, checks: [] });
  });
});

describe('formatChecklist', () => {
  it('prints one labelled line per item, advice under items that are not ok, and a summary', () => {
    const text = formatChecklist([
      { status: 'ok', finding: 'adb server tcp:127.0.0.1:5037 (default tcp:localhost:5037), version 41 (adb 1.0.41)', advice: 'never shown' },
      { status: 'warn', finding: 'devices: adb lists none', advice: 'connect a device' },
      { status: 'fail', finding: 'device R58M123: unauthorized', advice: 'accept the prompt' },
    ]);
    expect(text).toBe(
      [
        '[ OK ] adb server tcp:127.0.0.1:5037 (default tcp:localhost:5037), version 41 (adb 1.0.41)',
        '[WARN] devices: adb lists none',
        '       -> connect a device',
        '[FAIL] device R58M123: unauthorized',
        '       -> accept the prompt',
        '1 failed, 1 warning of 3 checks.',
        '',
      ].join('\n'),
    );
  });

  it('says so when everything passed', () => {
    expect(
      formatChecklist([
        { status: 'ok', finding: 'a' },
        { status: 'ok', finding: 'b' },
      ]),
    ).toBe('[ OK ] a\n[ OK ] b\nAll 2 checks passed.\n');
  });

  it('shows a control character from a device or the cloud as U+FFFD, never as a terminal command', () => {
    const text = formatChecklist([{ status: 'fail', finding: 'device EVIL\u001b[2J: unauthorized\u0007', advice: 'accept the \u009b prompt' }]);
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(text).toContain('device EVIL\ufffd[2J: unauthorized\ufffd');
  });

  it('shows a bidi override or a zero-width character a device gave as U+FFFD, so it cannot reorder the line', () => {
    const text = formatChecklist([{ status: 'warn', finding: 'device \u202Eevil\u2069 \u200Bunauthorized' }]);
    expect(text).not.toMatch(/\p{Cf}/u);
    expect(text).toContain('device \ufffdevil\ufffd \ufffdunauthorized');
  });

  it('keeps a multi-line error on its one line', () => {
    const text = formatChecklist([{ status: 'fail', finding: 'cloud: bad\n  at line two\r\n', advice: 'first\nsecond' }]);
    expect(text.split('\n').slice(0, 2)).toEqual(['[FAIL] cloud: bad at line two', '       -> first second']);
  });

  it('masks registered secrets and Basic credentials wherever they appear', () => {
    addSecret('s3cr3t-api-key');
    const text = formatChecklist([{ status: 'fail', finding: 'cloud said: key s3cr3t-api-key is wrong', advice: 'header was Basic dXNlcjpzM2NyM3Q=' }]);
    expect(text).not.toContain('s3cr3t-api-key');
    expect(text).not.toContain('dXNlcjpzM2NyM3Q=');
    expect(text).toContain('***');
  });

  it('keeps the layout whatever the finding holds', () => {
    const item = fc.record({
      status: fc.constantFrom('ok' as const, 'warn' as const, 'fail' as const),
      finding: fc.string(),
      advice: fc.option(fc.string(), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(item, { maxLength: 8 }), (items: CheckItem[]) => {
        const lines = formatChecklist(items).split('\n');
        expect(lines.pop()).toBe('');
        const summary = lines.pop()!;
        expect(summary).toMatch(/checks(?: passed)?\.$/);
        const labelled = lines.filter((l) => /^\[( OK |WARN|FAIL)\]( |$)/.test(l));
        expect(labelled).toHaveLength(items.length);
        for (const line of lines) expect(line).toMatch(/^(\[( OK |WARN|FAIL)\]( |$)| {7}-> )/);
      }),
    );
  });
});

describe('exitCodeOf', () => {
  it('is 1 only when an item failed; warnings pass', () => {
    expect(exitCodeOf([])).toBe(0);
    expect(
      exitCodeOf([
        { status: 'ok', finding: '' },
        { status: 'warn', finding: '' },
      ]),
    ).toBe(0);
    expect(
      exitCodeOf([
        { status: 'ok', finding: '' },
        { status: 'fail', finding: '' },
      ]),
    ).toBe(1);
  });

  it('is 2 when the configuration failed, as for every command, whatever else failed', () => {
    expect(
      exitCodeOf([
        { status: 'fail', finding: '' },
        { status: 'fail', finding: '', config: true },
      ]),
    ).toBe(2);
    // A warning about the configuration (an unknown variable) does not make it 2.
    expect(exitCodeOf([{ status: 'warn', finding: '', config: true }])).toBe(0);
  });
});

describe('atPhoneLevel', () => {
  const host: CheckItem = { status: 'fail', finding: 'adb server tcp:127.0.0.1:5037: not reachable (ECONNREFUSED)' };
  const unauthorized: CheckItem = { status: 'fail', finding: 'device R58M123: unauthorized', advice: 'accept the prompt', phone: true };
  const hot: CheckItem = { status: 'warn', finding: 'device R58M123: battery_hot', phone: true };

  it('at warn, a phone that failed warns and the doctor passes: the host can still report the others', () => {
    const judged = atPhoneLevel([{ status: 'ok', finding: 'cloud' }, unauthorized, hot], 'warn');
    expect(judged.map((i) => i.status)).toEqual(['ok', 'warn', 'warn']);
    expect(judged[1]).toEqual({ ...unauthorized, status: 'warn' });
    expect(exitCodeOf(judged)).toBe(0);
    expect(formatChecklist(judged)).toContain('[WARN] device R58M123: unauthorized\n       -> accept the prompt\n');
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
      status: fc.constantFrom('ok' as const, 'warn' as const, 'fail' as const),
      finding: fc.string(),
      phone: fc.option(fc.boolean(), { nil: undefined }),
      config: fc.option(fc.boolean(), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(item, { maxLength: 10 }), (items: CheckItem[]) => {
        const warned = atPhoneLevel(items, 'warn');
        const failed = atPhoneLevel(items, 'fail');
        expect(failed).toEqual(items);
        items.forEach((before, i) => {
          const after = warned[i]!;
          expect(after.status).toBe(before.phone && before.status === 'fail' ? 'warn' : before.status);
        });
        // The exit code at warn is what the host's items alone give.
        expect(exitCodeOf(warned)).toBe(exitCodeOf(items.filter((i) => !i.phone)));
        expect(exitCodeOf(warned)).toBeLessThanOrEqual(exitCodeOf(failed));
      }),
    );
  });
});

describe('formatChecklist on a terminal', () => {
  it('paints the labels green, yellow and red, and nothing else', () => {
    const text = formatChecklist(
      [
        { status: 'ok', finding: 'a' },
        { status: 'warn', finding: 'b', advice: 'do b' },
        { status: 'fail', finding: 'c', advice: 'do c' },
      ],
      ansiPaint,
    );
    expect(text.split('\n')).toEqual([
      '\u001b[32m[ OK ]\u001b[39m a',
      '\u001b[33m[WARN]\u001b[39m b',
      '       -> do b',
      '\u001b[31m[FAIL]\u001b[39m c',
      '       -> do c',
      '1 failed, 1 warning of 3 checks.',
      '',
    ]);
  });
});
