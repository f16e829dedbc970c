// The series a PromQL expression reads: each vector selector's metric name
// and label matchers. Pure. Enough of PromQL's lexical grammar for this
// (strings, numbers and durations, ranges and subqueries, label lists after
// by/without/on/ignoring/group_left/group_right, function and aggregation
// calls); anything it does not know, a Grafana variable left in for one,
// throws rather than pass unread.

export interface Matcher {
  label: string;
  op: '=' | '!=' | '=~' | '!~';
  value: string;
}

export interface Selector {
  /** Undefined for a selector without a name ({job="x"}); `__name__` matchers stay in `matchers`. */
  name: string | undefined;
  matchers: Matcher[];
}

const LABEL_LIST_KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);
const OTHER_KEYWORDS = new Set(['and', 'or', 'unless', 'offset', 'bool', 'atan2', 'inf', 'nan']);
const AGGREGATIONS = new Set([
  'sum',
  'min',
  'max',
  'avg',
  'group',
  'stddev',
  'stdvar',
  'count',
  'count_values',
  'bottomk',
  'topk',
  'quantile',
  'limitk',
  'limit_ratio',
]);

const IDENT = /[a-zA-Z_:][a-zA-Z0-9_:]*/y;
const NUMBER = /(?:0x[0-9a-fA-F]+|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)(?:(?:ms|[smhdwy])(?:[0-9]+(?:ms|[smhdwy]))*)?/y;
const OPERATORS = /(?:==|!=|>=|<=|=~|!~|[-+*/%^<>,()@])/y;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*/y;

export function selectors(expr: string): Selector[] {
  const out: Selector[] = [];
  let i = 0;
  const at = (re: RegExp): string | undefined => {
    re.lastIndex = i;
    const m = re.exec(expr);
    return m ? m[0] : undefined;
  };
  const skipSpace = (): void => {
    while (i < expr.length) {
      if (/\s/.test(expr[i]!)) i++;
      else if (expr[i] === '#') while (i < expr.length && expr[i] !== '\n') i++;
      else break;
    }
  };
  const string = (): string => {
    const quote = expr[i]!;
    let value = '';
    i++;
    while (i < expr.length && expr[i] !== quote) {
      if (expr[i] === '\\' && quote !== '`') {
        value += expr[i + 1] ?? '';
        i += 2;
      } else value += expr[i++];
    }
    if (i >= expr.length) throw new Error(`unterminated string in: ${expr}`);
    i++;
    return value;
  };
  const closing = (open: string, close: string): void => {
    // Label lists and ranges hold no nested brackets of their kind.
    const end = expr.indexOf(close, i);
    if (expr[i] !== open || end < 0) throw new Error(`expected ${open}...${close} at ${i} in: ${expr}`);
    i = end + 1;
  };
  const matchers = (): Matcher[] => {
    const list: Matcher[] = [];
    i++; // {
    for (;;) {
      skipSpace();
      if (expr[i] === '}') break;
      LABEL.lastIndex = i;
      const m = LABEL.exec(expr);
      if (!m) throw new Error(`bad label matcher at ${i} in: ${expr}`);
      i = LABEL.lastIndex;
      if (!'"\'`'.includes(expr[i] ?? '')) throw new Error(`label value is not a string at ${i} in: ${expr}`);
      list.push({ label: m[1]!, op: m[2] as Matcher['op'], value: string() });
      skipSpace();
      if (expr[i] === ',') i++;
    }
    i++; // }
    return list;
  };
  const nextIs = (c: string): boolean => {
    const save = i;
    skipSpace();
    const hit = expr[i] === c;
    i = save;
    return hit;
  };
  const nextWord = (): string | undefined => {
    const save = i;
    skipSpace();
    const word = at(IDENT);
    i = save;
    return word;
  };

  while ((skipSpace(), i < expr.length)) {
    const c = expr[i]!;
    if (c === '"' || c === "'" || c === '`') {
      string();
      continue;
    }
    if (c === '[') {
      closing('[', ']');
      continue;
    }
    if (c === '{') {
      out.push({ name: undefined, matchers: matchers() });
      continue;
    }
    const number = /[0-9.]/.test(c) ? at(NUMBER) : undefined;
    if (number) {
      i += number.length;
      continue;
    }
    const word = at(IDENT);
    if (word) {
      i += word.length;
      const lower = word.toLowerCase();
      if (LABEL_LIST_KEYWORDS.has(lower)) {
        if (nextIs('(')) {
          skipSpace();
          closing('(', ')');
        }
        continue;
      }
      if (OTHER_KEYWORDS.has(lower)) continue;
      if (nextIs('(')) continue; // a function call
      if (AGGREGATIONS.has(lower) && ['by', 'without'].includes(nextWord() ?? '')) continue;
      skipSpace();
      out.push({ name: word, matchers: expr[i] === '{' ? matchers() : [] });
      continue;
    }
    const op = at(OPERATORS);
    if (op) {
      i += op.length;
      continue;
    }
    throw new Error(`unexpected ${JSON.stringify(c)} at ${i} in: ${expr}`);
  }
  return out;
}

/**
 * The PromQL queries inside a Prometheus alert template: the format strings
 * of `printf "..." ... | query`, with each %q, %s or %v as an empty string.
 */
export function templateQueries(template: string): string[] {
  return [...template.matchAll(/printf\s+"((?:[^"\\]|\\.)*)"[^}]*\|\s*query/g)].map((m) =>
    m[1]!.replace(/\\(.)/g, '$1').replace(/%[qsv]/g, (v) => (v === '%q' ? '""' : '')),
  );
}
