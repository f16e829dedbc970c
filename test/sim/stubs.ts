// Turns a profile into a directory of executables, one per command name, so a
// real shell can run whatever script the agent sends with PATH set to only
// that directory: no host binary can answer with the host's data.
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseGetprop, DEFAULT_FALLBACK, type Fallback, type Profile, type Recording } from './profile.js';

/** Single-quote for /bin/sh. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * Shell code printing a fallback template, with a final newline. {command}
 * is the name, {args} all arguments; with {arg} the line is printed once per
 * argument that is not an option ("ls: /a: No such file..." for each path).
 */
export function renderTemplate(template: string, command: string): string {
  const words: string[] = [];
  for (const piece of template.split(/(\{command\}|\{args\}|\{arg\})/)) {
    if (piece === '') continue;
    if (piece === '{args}') words.push('"$*"');
    else if (piece === '{arg}') words.push('"$a"');
    else if (piece === '{command}') words.push(shellQuote(command));
    else words.push(shellQuote(piece));
  }
  const newline = template.endsWith('\n') ? '' : ' "\n"';
  // printf's format is fixed: recorded text never reaches it as a format.
  const print = `printf '%s' ${words.join(' ')}${newline}`;
  if (!template.includes('{arg}')) return `{ ${print}; }`;
  return `for a in "$@"; do case "$a" in -*) ;; *) ${print} ;; esac; done`;
}

interface StubPlan {
  /** Argument strings ("$*") to recordings. */
  recorded: Map<string, Recording>;
  fallback: Fallback | undefined;
}

/** The generated /bin/sh source of one command's stub. Pure. */
export function stubSource(
  name: string,
  plan: StubPlan,
  outputFile: (recording: Recording) => string,
  getprop?: Map<string, string>,
  hangs: string[] = [],
): string {
  const lines = ['#!/bin/sh', 'case "$*" in'];
  for (const args of hangs) lines.push(`${shellQuote(args)}) ${HANG} ;;`);
  for (const [args, recording] of plan.recorded) {
    const file = shellQuote(outputFile(recording));
    const body = recording.exitCode === 0 ? `exec /bin/cat ${file}` : `/bin/cat ${file}; exit ${recording.exitCode}`;
    lines.push(`${shellQuote(args)}) ${body} ;;`);
  }
  lines.push('esac');
  if (getprop) {
    // getprop NAME [DEFAULT]: the value, else the default, else an empty line.
    lines.push('case "$1" in');
    for (const [prop, value] of getprop) lines.push(`${shellQuote(prop)}) printf '%s\\n' ${shellQuote(value)} ;;`);
    lines.push(`*) printf '%s\\n' "$2" ;;`, 'esac', 'exit 0');
    return lines.join('\n') + '\n';
  }
  const fallback = plan.fallback ?? { template: DEFAULT_FALLBACK, exitCode: 1 };
  lines.push(`${renderTemplate(fallback.template, name)} >&2`, `exit ${fallback.exitCode}`);
  return lines.join('\n') + '\n';
}

/** Group a profile's command lines by command name. */
export function planStubs(profile: Profile): Map<string, StubPlan> {
  const plans = new Map<string, StubPlan>();
  const planFor = (name: string): StubPlan => {
    let plan = plans.get(name);
    if (!plan) {
      plan = { recorded: new Map(), fallback: profile.fallbacks.get(name) };
      plans.set(name, plan);
    }
    return plan;
  };
  for (const [line, recording] of profile.commands) {
    const space = line.indexOf(' ');
    const name = space < 0 ? line : line.slice(0, space);
    // A name with a slash would be a path, which PATH lookup never reaches.
    if (name.includes('/') || name === '') continue;
    planFor(name).recorded.set(space < 0 ? '' : line.slice(space + 1), recording);
  }
  for (const name of profile.fallbacks.keys()) if (!name.includes('/')) planFor(name);
  return plans;
}

/**
 * Wrappers hand the rest of their argv to the host's own tool (kept in our
 * process group by --foreground, so a killed session takes it along), which finds
 * the wrapped command on the same stub-only PATH.
 */
const WRAPPER_SOURCE: Record<string, string> = {
  timeout: '#!/bin/sh\nexec /usr/bin/timeout --foreground "$@"\n',
};

/** A stub that never answers: the command hangs until killed. */
const HANG = 'exec /bin/sleep 2147483647';

export interface StubOptions {
  /** Recorded command lines ("dumpsys battery") that hang instead of answering. */
  hangOn?: RegExp;
}

/** Write the stubs into `dir`/bin and their outputs into `dir`/out; returns the bin folder. */
export async function writeStubs(profile: Profile, dir: string, options: StubOptions = {}): Promise<string> {
  const bin = join(dir, 'bin');
  const out = join(dir, 'out');
  await mkdir(bin, { recursive: true });
  await mkdir(out, { recursive: true });
  const files = new Map<Recording, string>();
  const writes: Promise<void>[] = [];
  const outputFile = (recording: Recording): string => {
    let file = files.get(recording);
    if (!file) {
      file = join(out, String(files.size));
      files.set(recording, file);
      writes.push(writeFile(file, recording.output));
    }
    return file;
  };
  const hangOn = options.hangOn;
  for (const [name, plan] of planStubs(profile)) {
    const getprop = name === 'getprop' ? parseGetprop(plan.recorded.get('')?.output ?? '') : undefined;
    const hangs = hangOn ? [...plan.recorded.keys()].filter((args) => hangOn.test(args ? `${name} ${args}` : name)) : [];
    const stub = join(bin, name);
    writes.push(writeFile(stub, stubSource(name, plan, outputFile, getprop, hangs)).then(() => chmod(stub, 0o755)));
  }
  for (const name of profile.wrappers) {
    const source = WRAPPER_SOURCE[name];
    if (!source) continue;
    const stub = join(bin, name);
    writes.push(writeFile(stub, source).then(() => chmod(stub, 0o755)));
  }
  await Promise.all(writes);
  return bin;
}
