// A kernel printf format string made into the pattern of the messages it
// prints: its fixed text must match exactly (a run of spaces as one or more,
// since copies of logs in web pages and mail collapse them), and each
// conversion only what the kernel can put there. Pure.
//
// A `%s` is the one conversion that could carry a device's own words (a
// product string): it matches what the catalogue entry says it holds, a list
// of the kernel's own words, one word (a driver's or a function's name), or
// `data`, which is anything and makes the entry one whose text is the
// device's (never a message of the kernel's judged on its words).

/** What one `%s` of a format may hold. */
export type StringArg = readonly string[] | 'word' | 'data';

export interface CompiledFormat {
  pattern: RegExp;
  /** The conversions in order ('s', 'd', 'u', 'x', ...), for picking captured fields by index. */
  conversions: string[];
}

const NUMBER: Record<string, string> = {
  d: '-?\\d+',
  i: '-?\\d+',
  u: '\\d+',
  x: '[0-9a-fA-F]+',
  X: '[0-9a-fA-F]+',
  c: '.',
  p: '\\S+',
};

/**
 * The pattern of a format: every conversion a capture group, in order.
 * `args` says, in order, what each `%s` holds; a `%s` beyond them is one word.
 */
export function compileFormat(format: string, args: readonly StringArg[] = []): CompiledFormat {
  let source = '^';
  const conversions: string[] = [];
  let strings = 0;
  // %[flags][width][.precision][length]conversion; a pointer's extension letters (%pK, %pad) belong to it.
  const conversion = /%([-+ #0]*)(\d*)(?:\.\d+)?(?:hh|h|ll|l|z|j|t)?(?:p[A-Za-z]*|([diuxXsc%]))/g;
  let last = 0;
  for (let m = conversion.exec(format); m; m = conversion.exec(format)) {
    source += literal(format.slice(last, m.index));
    last = m.index + m[0].length;
    const [, flags = '', width = ''] = m;
    const kind = m[3] ?? 'p';
    if (kind === '%') {
      source += '%';
      continue;
    }
    conversions.push(kind);
    if (kind === 's') {
      source += `(${stringArg(args[strings++] ?? 'word')})`;
    } else {
      // A width pads with spaces unless the 0 flag pads with zeros ("bcdDevice= 6.00" from %2x); # adds 0x.
      const pad = width !== '' && !flags.includes('0') ? ' *' : '';
      const prefix = flags.includes('#') && (kind === 'x' || kind === 'X') ? '(?:0x)?' : '';
      source += `${pad}(${prefix}${NUMBER[kind]!})`;
    }
  }
  source += `${literal(format.slice(last))}$`;
  return { pattern: new RegExp(source), conversions };
}

function stringArg(arg: StringArg): string {
  if (arg === 'data') return '[\\s\\S]*';
  if (arg === 'word') return '\\S+';
  return arg.map(literal).join('|');
}

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ +/g, ' +');
}
