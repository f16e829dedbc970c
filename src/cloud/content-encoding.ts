// An answer's Content-Encoding undone: the agent asks for none, but RFC 9110 lets a server or gateway compress anyway,
// and gzipped JSON read as text is garbage. gzip, deflate and br are decoded under the body reader's bound, on the
// decoded size, so a small bomb cannot make a large answer.

import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate, inflateRaw, type ZlibOptions, type BrotliOptions } from 'node:zlib';

/** An answer the exchange refuses (too long, in a coding it cannot read, cut short), with a code of its own. */
export class HttpAnswerError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'HttpAnswerError';
  }
}

type Decoder = (input: Buffer, options: ZlibOptions & BrotliOptions) => Promise<Buffer>;

const unzip = promisify(gunzip);
const zlibInflate = promisify(inflate);
const rawInflate = promisify(inflateRaw);

// "deflate" is meant to be zlib-wrapped (RFC 9110 8.4.1.2); some servers send it raw.
const deflate: Decoder = (input, options) => ((input[0]! & 0x0f) === 8 && ((input[0]! << 8) | input[1]!) % 31 === 0 ? zlibInflate : rawInflate)(input, options);

const DECODERS: Record<string, Decoder> = { gzip: unzip, 'x-gzip': unzip, deflate, br: promisify(brotliDecompress) };

/** The codings of a Content-Encoding header, in the order they were applied; identity left out. */
function codingsOf(header: string | undefined) {
  return (header ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
}

/** The body with its codings undone, at most maxBytes decoded; an empty body stays empty (a HEAD, a 204). */
export async function decodeBody(body: Buffer, header: string | undefined, maxBytes: number) {
  const codings = codingsOf(header);
  if (body.length === 0 || codings.length === 0) return body;
  let out = body;
  for (const coding of codings.reverse()) {
    const decoder = DECODERS[coding];
    if (decoder === undefined) {
      throw new HttpAnswerError(
        'EBADENCODING',
        `the answer came in the content coding "${coding.replace(/[^\x21-\x7e]/g, '?').slice(0, 40)}", which the agent cannot read (it asks for none: Accept-Encoding: identity)`,
      );
    }
    try {
      out = await decoder(out, { maxOutputLength: maxBytes });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === 'ERR_BUFFER_TOO_LARGE') throw new HttpAnswerError('EBODYTOOLARGE', `the answer, once decoded (${coding}), is longer than ${maxBytes} bytes`);
      throw new HttpAnswerError('EBADENCODING', `the answer says it is ${coding}-encoded but does not decode as ${coding}`);
    }
  }
  return out;
}
