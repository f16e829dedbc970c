// Secrets must never reach a log line or the terminal, whatever object carries them (an HTTP error can hold the request
// options, headers included). pino's path-based redaction cannot know every shape, so values are masked by content too:
// any registered secret string, and any Basic/Bearer credential, and the password of any URL with credentials, is
// replaced wherever it appears.

/**
 * The secrets, longest first: a key's JSON form (`a\\b`) holds its raw form (`a\b`), and masking the raw one first
 * would leave a lone backslash that escapes the line's closing quote.
 */
let longestFirst: string[] = [];

export const MASK = '***';

/**
 * Registers a secret (the API key, the Basic credential) to be masked in every log line. The mask runs on lines already
 * written as JSON, and a URL carries a secret percent-encoded, so a key holding `"`, `\`, a control character or a
 * reserved character is registered in those forms too.
 */
export function addSecret(value: string | undefined) {
  if (value && value.length >= 4) {
    const forms = [value, Buffer.from(value).toString('base64'), JSON.stringify(value).slice(1, -1), encodeURIComponent(value)];
    // Sorted stably: secrets of one length stay in the order they came.
    longestFirst = [...new Set([...longestFirst, ...forms])].sort((a, b) => b.length - a.length);
  }
}

export function clearSecrets() {
  longestFirst = [];
}

const authPattern = /\b(Basic|Bearer)\s+[A-Za-z0-9+/=._~-]+/g;
// The password of a URL with credentials (a proxy URL: http://user:password@host); the placeholder of advice
// (http://USER:PASSWORD@HOST:PORT) stays readable.
const urlPasswordPattern = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/@:]*):([^\s/@]*)@/gi;

export function maskString(text: string) {
  let out = text
    .replace(authPattern, `$1 ${MASK}`)
    .replace(urlPasswordPattern, (all, head: string, password: string) => (password === 'PASSWORD' ? all : `${head}:${MASK}@`));
  for (const secret of longestFirst) out = out.replaceAll(secret, MASK);
  return out;
}
