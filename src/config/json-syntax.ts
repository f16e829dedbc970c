// Where a settings file stops being JSON, and why, in words that quote none of it: JSON.parse's message quotes the text
// around the error, and a settings file (or the key file given by mistake) holds the API key. Found by a scan of the
// grammar once JSON.parse has refused the text, which also keeps the words the same across Node versions. Pure.

export interface JsonSyntaxError {
  /** 1-based, as editors count. */
  line: number;
  column: number;
  /** What is wrong there; never a character of the file but JSON's own punctuation. */
  problem: string;
}

type Expect = 'value' | 'first-value' | 'key' | 'first-key' | 'colon' | 'after-value';

const LITERALS = ['true', 'false', 'null'];
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WORD_CHAR = /[\p{L}\p{N}_$.+-]/u;

/** The first syntax error of text that JSON.parse refused; a position-less answer if the scan finds none. */
export function jsonSyntaxError(text: string): JsonSyntaxError {
  const at = (offset: number, problem: string): JsonSyntaxError => ({ ...position(text, offset), problem });
  const stack: Array<'{' | '['> = [];
  let expect: Expect = 'value';
  let i = 0;
  const skipSpace = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const close = () => {
    stack.pop();
    i++;
    expect = 'after-value';
  };
  skipSpace();
  if (i === text.length) return at(i, 'the file is empty; write {} for a file that sets nothing');
  if (text[i] !== '{') return at(i, `${what(text[i]!)} where the file should start with '{' (is this the settings file?)`);
  while (true) {
    skipSpace();
    const c = text[i];
    const top = stack[stack.length - 1];
    const closing = top === '{' ? '}' : ']';
    if (c === undefined) {
      return stack.length === 0 ? at(i, 'JSON.parse refused it, but no error was found') : at(i, `the file ends before the closing '${closing}'`);
    }
    if (stack.length === 0 && expect === 'after-value') return at(i, `${what(c)} after the closing '}': the file holds one JSON object only`);
    switch (expect) {
      case 'first-key':
      case 'key':
        if (c === '}' && expect === 'first-key') close();
        else if (c === '"') {
          const problem = skipString();
          if (problem) return problem;
          expect = 'colon';
        } else if (c === '}') return at(i, "a comma before '}' (JSON allows no comma after the last entry)");
        else if (c === "'") return at(i, 'a single quote: JSON keys take double quotes');
        else return at(i, `${what(c)} where a key in double quotes should be`);
        break;
      case 'colon':
        if (c !== ':') return at(i, `${what(c)} where ':' should follow the key`);
        i++;
        expect = 'value';
        break;
      case 'first-value':
      case 'value':
        if (c === ']' && expect === 'first-value') close();
        else if (c === '{' || c === '[') {
          stack.push(c);
          i++;
          expect = c === '{' ? 'first-key' : 'first-value';
        } else {
          const problem = c === '"' ? skipString() : skipScalar();
          if (problem) return problem;
          expect = 'after-value';
        }
        break;
      case 'after-value':
        if (c === ',') {
          i++;
          expect = top === '{' ? 'key' : 'value';
        } else if (c === closing) close();
        else return at(i, `${what(c)} where ',' or '${closing}' should follow a value (a comma missing?)`);
        break;
    }
  }

  function skipString(): JsonSyntaxError | undefined {
    const start = i;
    i++;
    while (i < text.length) {
      const c = text[i]!;
      if (c === '"') {
        i++;
        return undefined;
      }
      if (c === '\\') {
        const e = text[i + 1];
        if (e === 'u' ? !/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6)) : e === undefined || !'"\\/bfnrt'.includes(e)) {
          return at(i, 'a backslash escape JSON does not know (a Windows path? write \\\\ for one backslash)');
        }
        i += e === 'u' ? 6 : 2;
        continue;
      }
      if (c < ' ') return at(i, c === '\n' ? 'a line break inside a string (a closing " missing?)' : 'a control character inside a string');
      i++;
    }
    return at(start, 'a string that is never closed (a closing " missing)');
  }

  function skipScalar(): JsonSyntaxError | undefined {
    const start = i;
    const c = text[i]!;
    if (c === "'") return at(i, 'a single quote: JSON strings take double quotes');
    if (c === '}' || c === ']' || c === ',') {
      return at(i, c === ',' ? "a ',' where a value should be" : `a comma before '${c}' (JSON allows no comma after the last entry)`);
    }
    NUMBER.lastIndex = i;
    const number = /[-\d]/.test(c) ? NUMBER.exec(text) : null;
    let end = number ? i + number[0].length : i;
    if (!number) while (end < text.length && WORD_CHAR.test(text[end]!)) end++;
    const word = text.slice(start, end);
    if (end === start) return at(i, `${what(c)} where a value should be`);
    if (!number && !LITERALS.includes(word)) return at(start, 'text without double quotes where a value should be (a text value takes "...")');
    // A word ran to its end above: only a number can be followed by more of one.
    if (end < text.length && WORD_CHAR.test(text[end]!)) return at(start, 'a malformed number (or text without double quotes)');
    i = end;
    return undefined;
  }
}

function position(text: string, offset: number) {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: offset - lineStart + 1 };
}

/** A character named without being shown, unless it is JSON's own punctuation. */
function what(c: string) {
  if ('{}[]:,"'.includes(c)) return `'${c}'`;
  if (c === "'") return 'a single quote';
  if (/\p{L}/u.test(c)) return 'a letter';
  if (/\p{N}/u.test(c)) return 'a digit';
  if (c === '/' || c === '#') return 'a comment (JSON has none)';
  // An invisible character is worth its code point: the operator cannot see what to delete.
  if (/[\p{C}\p{Z}]/u.test(c)) return `an invisible character (${codePointName(c)})`;
  return 'a symbol';
}

/** A character by its Unicode name for people: U+000D. */
export function codePointName(c: string) {
  return `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}
