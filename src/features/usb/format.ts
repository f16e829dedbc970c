// A kernel printf format made into the pattern of the messages it prints: fixed text exactly (a run of spaces as one or
// more: copies of logs collapse them), each conversion only what the kernel can put there. Pure. A `%s` is the one
// conversion that could carry a device's words: it matches what its entry says it holds (the kernel's words, one word,
// or `data`, the device's, never judged on its words).

/** What one `%s` of a format may hold. */
export type StringArg = readonly string[] | 'word' | 'data';

const NUMBER: Record<string, string> = {
  d: '-?\\d+',
  i: '-?\\d+',
  u: '\\d+',
  x: '[0-9a-fA-F]+',
  X: '[0-9a-fA-F]+',
  c: '.',
  p: '\\S+',
};

/** The pattern of a format, every conversion a capture group (by index, as fields pick them); `args` says what each `%s` holds (beyond them, one word). */
export function compileFormat(format: string, args: readonly StringArg[] = []) {
  let source = '^';
  let strings = 0;
  // %[flags][width][.precision][length]conversion; a pointer's extension letters (%pK, %pad) belong to it.
  const conversion = /%([-+ #0]*)(\d*)(?:\.\d+)?(?:hh|h|ll|l|z|j|t)?(?:p[A-Za-z]*|([diuxXsc%]))/g;
  let last = 0;
  for (const m of format.matchAll(conversion)) {
    source += literal(format.slice(last, m.index));
    last = m.index + m[0].length;
    const [, flags = '', width = ''] = m;
    const kind = m[3] ?? 'p';
    if (kind === '%') {
      source += '%';
      continue;
    }
    if (kind === 's') {
      const arg = args[strings++] ?? 'word';
      // A device's words that end the line may be blank: the reader strips the line's trailing spaces, the space before them too.
      if (arg === 'data' && last === format.length) source = source.replace(/ \+$/, ' *');
      source += `(${stringArg(arg)})`;
    } else {
      // A width pads with spaces unless the 0 flag pads with zeros ("bcdDevice= 6.00" from %2x); # adds 0x.
      const pad = width !== '' && !flags.includes('0') ? ' *' : '';
      const prefix = flags.includes('#') && (kind === 'x' || kind === 'X') ? '(?:0x)?' : '';
      source += `${pad}(${prefix}${NUMBER[kind]!})`;
    }
  }
  source += `${literal(format.slice(last))}$`;
  return new RegExp(source);
}

function stringArg(arg: StringArg) {
  if (arg === 'data') return '[\\s\\S]*';
  if (arg === 'word') return '\\S+';
  return arg.map(literal).join('|');
}

function literal(text: string) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ +/g, ' +');
}
