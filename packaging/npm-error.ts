// What went wrong, in one line, from a failed npm command run with --json:
// npm then prints `{ "error": { "code", "summary", "detail" } }` on stdout,
// and the stack on stderr. Its first line alone is `{`, which the package
// build once printed as the reason (issue 61: "newest 24.x ({)"). Pure.

interface NpmJsonError {
  error?: { code?: unknown; summary?: unknown };
}

/**
 * The reason of a failed `npm ... --json`: its error's summary (prefixed
 * with the code when the summary does not name it), else the first line of
 * stderr npm wrote as `npm error ...`, else `fallback`. At most 300 characters.
 */
export function npmFailure(stdout: string, stderr: string, fallback: string): string {
  let reason: string | undefined;
  try {
    const parsed = JSON.parse(stdout) as NpmJsonError;
    const summary = typeof parsed.error?.summary === 'string' ? parsed.error.summary.trim().split('\n')[0] : undefined;
    const code = typeof parsed.error?.code === 'string' ? parsed.error.code : undefined;
    if (summary) {
      // "FetchError: request to ... failed, reason: ..." says what a fetch error is already.
      const text = summary.replace(/^FetchError: /, '');
      reason = code && !text.includes(code) ? `${code}: ${text}` : text;
    } else if (code) reason = code;
  } catch {
    // Not JSON: npm died before writing it (or was killed at a deadline).
  }
  reason ??= stderr
    .split('\n')
    .map((l) => l.replace(/^npm (?:error|ERR!) ?/, '').trim())
    .find((l) => l !== '' && !/^(code|errno|syscall) /.test(l) && !/^[{}[\]]$/.test(l));
  reason ??= fallback;
  return reason.length > 300 ? `${reason.slice(0, 299)}…` : reason;
}
