import { describe, expect, it } from 'vitest';
import { StateDirTrouble, stateWriteProblem } from '../../src/log/state-dir-trouble.js';
import { captureLogger } from './capture.js';

// The state directory's trouble, said once between the writers that share
// one StateDirTrouble (the state files', src/config/state-file.ts); one of
// its own says it for itself.

const failure = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`${code}: write /state/x.json.123.tmp`), { code });
const warnings = (lines: Array<Record<string, unknown>>): string[] => lines.filter((l) => l.level === 'warn').map((l) => String(l.msg));

describe('StateDirTrouble', () => {
  it("says a directory's trouble once between the writers that share it, each writer's loss at info, and again once it worked", () => {
    const { logger, lines } = captureLogger();
    const trouble = new StateDirTrouble();
    trouble.writeFailed(logger, '/state/reported-devices.json', failure('ENOSPC'), 'cannot keep the reported device set', undefined);
    trouble.writeFailed(logger, '/state/status-endpoint.json', failure('ENOSPC'), "cannot keep the status endpoint's state", undefined);
    expect(warnings(lines())).toEqual([
      expect.stringMatching(/^the state directory \/state: the file system is full \(ENOSPC\)\. .*free space on its file system/),
    ]);
    expect(
      lines()
        .filter((l) => l.level === 'info')
        .map((l) => l.msg),
    ).toEqual(['cannot keep the reported device set', "cannot keep the status endpoint's state"]);
    // Another trouble of the same directory is news.
    trouble.writeFailed(logger, '/state/reported-devices.json', failure('EROFS'), 'cannot keep the reported device set (read-only)', undefined);
    expect(warnings(lines())).toHaveLength(2);
    // A write went through: met again, it is said again.
    trouble.works('/state/charge-paused-ports.json');
    trouble.writeFailed(logger, '/state/reported-devices.json', failure('ENOSPC'), 'cannot keep the reported device set', undefined);
    expect(warnings(lines())).toHaveLength(3);
  });

  it('keeps what it said to itself: a writer with a trouble of its own says it for itself', () => {
    const first = captureLogger();
    const second = captureLogger();
    new StateDirTrouble().writeFailed(first.logger, '/state/a.json', failure('ENOSPC'), 'cannot keep a', undefined);
    new StateDirTrouble().writeFailed(second.logger, '/state/b.json', failure('ENOSPC'), 'cannot keep b', undefined);
    expect(warnings(first.lines())).toHaveLength(1);
    expect(warnings(second.lines())).toHaveLength(1);
  });

  it("says another error as the writer's own warning, and nothing while the writer's line stays the same", () => {
    const { logger, lines } = captureLogger();
    const trouble = new StateDirTrouble();
    const said = trouble.writeFailed(logger, '/state/a.json', failure('EACCES'), 'cannot keep a: permission denied', undefined);
    trouble.writeFailed(logger, '/state/a.json', failure('EACCES'), said, said);
    expect(warnings(lines())).toEqual(['cannot keep a: permission denied']);
    expect(stateWriteProblem(failure('EDQUOT'))).toBe("the agent's user is over its disk quota (EDQUOT)");
    expect(stateWriteProblem(failure('EACCES'))).toBe('EACCES: write /state/x.json.123.tmp');
  });
});
