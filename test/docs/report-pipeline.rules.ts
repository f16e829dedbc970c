import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../../tools/cycles/imports.js';
import { callersOf, srcProgram } from './src-program.js';

// Issue 41's report pipeline, read from the syntax tree of src/: each
// property that "one place does it" is checked by finding every place that
// does it, so a second writer fails here whatever it is called.

const root = new URL('../../', import.meta.url);
const rootPath = fileURLToPath(root);
const files = sourceFiles(rootPath).filter((f) => f.startsWith('src/'));

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(new URL(file, root), 'utf8'), ts.ScriptTarget.Latest, true);
}

function where(source: ts.SourceFile, node: ts.Node): string {
  return `${source.fileName}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
}

/** The name a property node names, identifier or string alike; undefined for a computed one. */
function propertyName(name: ts.Node | undefined): string | undefined {
  if (name === undefined) return undefined;
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNoSubstitutionTemplateLiteral(name)) return name.text;
  return undefined;
}

/**
 * Every place in src/ that writes the property `name` of a value: a key of an
 * object literal (`{ name: x }`, `{ name }`), an assignment to it (`o.name =`,
 * `o['name'] =`, `o.name ??=`) or a delete. Types (interface members) are not
 * writes, and neither is reading it.
 */
function propertyWriters(name: string): string[] {
  const out: string[] = [];
  for (const file of files) {
    const source = parse(file);
    const visit = (node: ts.Node): void => {
      if ((ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node)) && propertyName(node.name) === name) out.push(where(source, node));
      if (ts.isBinaryExpression(node) && node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && node.operatorToken.kind <= ts.SyntaxKind.LastAssignment) {
        const left = node.left;
        if (ts.isPropertyAccessExpression(left) && left.name.text === name) out.push(where(source, node));
        if (ts.isElementAccessExpression(left) && propertyName(left.argumentExpression) === name) out.push(where(source, node));
      }
      if (ts.isDeleteExpression(node)) {
        const target = node.expression;
        if (ts.isPropertyAccessExpression(target) && target.name.text === name) out.push(where(source, node));
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}

/**
 * Every place in src/ that writes a device's `message` (DeviceInfo's, as
 * TypeScript resolves it): an object literal key or an assignment whose
 * property is DeviceInfo's `message`, an object literal that spreads a
 * device and sets `message`, and a rest that leaves it out of a device.
 */
function deviceMessageWriters(): string[] {
  const program = srcProgram();
  const checker = program.getTypeChecker();
  const typesFile = rootPath + 'src/cloud/types.ts';
  const isDeviceField = (symbol: ts.Symbol | undefined, name: string): boolean =>
    symbol?.declarations?.some(
      (d) =>
        d.getSourceFile().fileName === typesFile &&
        ts.isInterfaceDeclaration(d.parent) &&
        d.parent.name.text === 'DeviceInfo' &&
        propertyName((d as ts.NamedDeclaration).name) === name,
    ) ?? false;
  const isDeviceMessage = (symbol: ts.Symbol | undefined): boolean => isDeviceField(symbol, 'message');
  // A device's type, or a literal that spreads one: its udid is DeviceInfo's.
  const isDevice = (type: ts.Type | undefined): boolean =>
    type !== undefined && (isDeviceMessage(type.getProperty('message')) || isDeviceField(type.getProperty('udid'), 'udid'));
  const out: string[] = [];
  for (const source of program.getSourceFiles()) {
    if (!source.fileName.startsWith(rootPath + 'src/')) continue;
    const file = source.fileName.slice(rootPath.length);
    const at = (node: ts.Node): string => `${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
    const visit = (node: ts.Node): void => {
      if ((ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node)) && propertyName(node.name) === 'message') {
        const literal = node.parent;
        if (isDevice(checker.getContextualType(literal)) || isDevice(checker.getTypeAtLocation(literal))) out.push(at(node));
      }
      if (ts.isBinaryExpression(node) && node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && node.operatorToken.kind <= ts.SyntaxKind.LastAssignment) {
        if (ts.isPropertyAccessExpression(node.left) && node.left.name.text === 'message' && isDeviceMessage(checker.getSymbolAtLocation(node.left.name)))
          out.push(at(node));
      }
      if (ts.isBindingElement(node) && propertyName(node.propertyName ?? node.name) === 'message' && ts.isObjectBindingPattern(node.parent)) {
        const hasRest = node.parent.elements.some((e) => e.dotDotDotToken !== undefined);
        if (hasRest && isDevice(checker.getTypeAtLocation(node.parent))) out.push(at(node));
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}

/**
 * One reading's path to the PUT body (issue 41): the Android source's
 * collect and its inventory, the registry, the report (execute, health, the
 * features' passes, decorate, the UNPLUGGED ledger, the body's limits) and
 * the loop that plans it. The transports under it (adb's socket, the cloud's
 * HTTP) keep their own I/O deadlines and are not on this list.
 */
const REPORT_PATH = [
  'src/agent/report-loop.ts',
  'src/report/run.ts',
  'src/timing/plan-timer.ts',
  'src/timing/planner.ts',
  'src/report/reporter.ts',
  'src/report/execute.ts',
  'src/platforms/android/source.ts',
  'src/platforms/android/inventory/runner.ts',
  'src/platforms/android/describe.ts',
  'src/platforms/android/inventory/probe.ts',
  'src/platforms/android/inventory/assemble.ts',
  'src/devices/registry.ts',
  'src/devices/feature.ts',
  'src/features/health/monitor.ts',
  'src/features/health/rules.ts',
  'src/features/charge/paused-report.ts',
  'src/features/usb/off-adb.ts',
  'src/features/readiness/feature.ts',
  'src/report/decorate.ts',
  'src/report/unplugged.ts',
  'src/report/field-limits.ts',
  'src/report/clean-strings.ts',
  'src/report/split-put.ts',
  'src/cloud/device-message.ts',
];

/** Where a file reads real time or sets a real timer itself, not through the injected clock and timers (src/util/clock.ts). */
function realTime(file: string): string[] {
  const source = parse(file);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && ['setTimeout', 'setInterval', 'setImmediate'].includes(node.text)) out.push(`${where(source, node)} ${node.text}`);
    if (
      ts.isPropertyAccessExpression(node) &&
      ts.isIdentifier(node.expression) &&
      ['Date', 'performance'].includes(node.expression.text) &&
      node.name.text === 'now'
    )
      out.push(`${where(source, node)} ${node.getText(source)}`);
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'Date' && (node.arguments?.length ?? 0) === 0)
      out.push(`${where(source, node)} new Date()`);
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && /^(node:)?(timers|perf_hooks)(\/|$)/.test(node.moduleSpecifier.text))
      out.push(`${where(source, node)} import ${node.moduleSpecifier.text}`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

describe('the report pipeline (issue 41)', () => {
  it('isHidden is written once: by the report decorate pass, from settings.hiddenDevices', () => {
    const writers = propertyWriters('isHidden');
    expect(writers.map((w) => w.replace(/:\d+$/, ''))).toEqual(['src/report/decorate.ts', 'src/report/decorate.ts']);
    const decorate = readFileSync(new URL('src/report/decorate.ts', root), 'utf8');
    expect(decorate).toMatch(/const isHidden = settings\.hiddenDevices\.includes\(info\.udid\)/);
  });
  it("one function composes a device's message: no file but src/cloud/device-message.ts writes DeviceInfo.message", () => {
    const writers = deviceMessageWriters().map((w) => w.replace(/:\d+$/, ''));
    expect(writers.filter((f) => f !== 'src/cloud/device-message.ts')).toEqual([]);
    // The check sees a writer: the composer's own.
    expect(writers).toContain('src/cloud/device-message.ts');
  });

  it('the report path holds no real timer: from a reading to the PUT body, time is the injected clock and timers only', () => {
    for (const file of REPORT_PATH) expect(() => parse(file), file).not.toThrow();
    expect(REPORT_PATH.flatMap(realTime)).toEqual([]);
    // The check sees real time where it is: the clock itself.
    expect(realTime('src/util/clock.ts').length).toBeGreaterThan(0);
  });

  it("an inventory's answer is applied to readings.ts, never back into the registry: the Android runner applies it and writes no record", () => {
    const runner = 'src/platforms/android/inventory/runner.ts';
    const recordWriters = callersOf('src/devices/registry.ts', ['sync', 'setUsb']);
    // The check sees a record writer: the source syncs its listing.
    expect(recordWriters.has('src/platforms/android/source.ts')).toBe(true);
    expect(callersOf('src/devices/readings.ts', ['answered', 'failed']).has(runner)).toBe(true);
    expect(recordWriters.has(runner)).toBe(false);
  });
});
