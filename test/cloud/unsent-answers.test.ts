import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FailedDevice } from '../../src/cloud/types.js';
import { UnsentAnswers } from '../../src/cloud/unsent-answers.js';

// failedDevices entries naming devices the report did not carry (issue 42,
// finding 12): a memory of the 10,000 last (udid, message) pairs took an
// answer naming 49,999 for 39,999 new ones on every report after the first.

const named = (n: number, message = 'not yours'): FailedDevice[] => Array.from({ length: n }, (_, i) => ({ udid: `OTHER${i}`, message }));

/** One answer's entries by udid, the first entry of a udid listed twice counting. */
function truth(answer: readonly FailedDevice[]): Map<string, string> {
  const byUdid = new Map<string, string>();
  for (const f of answer) if (!byUdid.has(f.udid)) byUdid.set(f.udid, f.message);
  return byUdid;
}

const keyOf = (answer: readonly FailedDevice[]): string => JSON.stringify([...truth(answer)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

describe('UnsentAnswers', () => {
  it('an answer naming 49,999 devices not carried, on every report: said once with its true count, not again', () => {
    const answers = new UnsentAnswers();
    const answer = named(49_999);
    expect(answers.toLog(answer)).toHaveLength(49_999);
    for (let report = 0; report < 5; report++) expect(answers.toLog(answer)).toEqual([]);
  });

  it('the same entries in another order, or a udid listed twice, are the same answer', () => {
    const answers = new UnsentAnswers();
    const answer = named(3);
    expect(answers.toLog([...answer, answer[0]!])).toHaveLength(3);
    expect(answers.toLog([...answer].reverse())).toEqual([]);
    // Another message for one of them is another answer.
    expect(answers.toLog([...answer.slice(1), { udid: 'OTHER0', message: 'gone' }])).toHaveLength(3);
  });

  it('random sequences of answers: each line has the true count of udids not carried, and at most one line per distinct answer', () => {
    const entry = fc.record({ udid: fc.constantFrom('A', 'B', 'C', 'D', 'E', 'F'), message: fc.constantFrom('not yours', 'unknown') });
    fc.assert(
      fc.property(fc.array(fc.array(entry, { maxLength: 8 }), { maxLength: 40 }), (sequence) => {
        const answers = new UnsentAnswers();
        const said = new Set<string>();
        for (const answer of sequence) {
          const logged = answers.toLog(answer);
          const key = keyOf(answer);
          if (answer.length === 0 || said.has(key)) {
            // Nothing to say, or this very answer was said already: no line.
            expect(logged).toEqual([]);
            continue;
          }
          // A new answer is said once, every udid in it counted once.
          said.add(key);
          expect(logged.length).toBe(truth(answer).size);
          expect(new Map(logged.map((f) => [f.udid, f.message]))).toEqual(truth(answer));
        }
      }),
    );
  });

  it('remembers a bounded number of answers, forgetting the oldest first', () => {
    const answers = new UnsentAnswers(2);
    const [a, b, c] = [named(1, 'a'), named(1, 'b'), named(1, 'c')];
    for (const x of [a, b, c]) expect(answers.toLog(x)).toHaveLength(1);
    expect(answers.toLog(c)).toEqual([]);
    expect(answers.toLog(b)).toEqual([]);
    // a was forgotten: said again, with its true count still.
    expect(answers.toLog(a)).toHaveLength(1);
  });
});
