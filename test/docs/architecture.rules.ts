import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { folderOf } from '../../tools/cycles/graph.js';
import { compilerOptions, importEdges, sourceFiles } from '../../tools/cycles/imports.js';
import { callersOf } from './src-program.js';

// docs/design/architecture.md is the map of src/ and states the rules the
// code keeps. This reads the code for each: the paths it names exist, every
// folder is on the map, and each rule holds in the import graph and at the
// call sites as TypeScript reads them. A rule broken in the code, or changed
// in the page alone, fails here.

const root = new URL('../../', import.meta.url);
const rootPath = fileURLToPath(root);
const doc = readFileSync(new URL('docs/design/architecture.md', root), 'utf8');
const files = sourceFiles(rootPath);
const edges = importEdges(rootPath, files, compilerOptions(rootPath));

/** The layers of rule 1, top first, as the page lists them. */
function layers(): string[][] {
  const block = /```layers\n([\s\S]*?)```/.exec(doc);
  if (!block) throw new Error('docs/design/architecture.md has no ```layers block');
  return block[1]!
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => line.split(',').map((f) => f.trim()));
}

/** The identifiers of a file, comments and strings left out. */
function identifiers(file: string): string[] {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, readFileSync(new URL(file, root), 'utf8'));
  const out: string[] = [];
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.Identifier) out.push(scanner.getTokenText());
  }
  return out;
}

/** The lines of a file whose code (an identifier, a string, a template or an import path; never a comment) matches the pattern. */
function codeLines(file: string, pattern: RegExp): Array<{ line: number; text: string }> {
  const text = readFileSync(new URL(file, root), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const hit = new Set<number>();
  // forEachChild walks the syntax tree, which holds no comment: only the tokens that are code are read.
  const visit = (node: ts.Node): void => {
    if (
      (ts.isIdentifier(node) || ts.isPrivateIdentifier(node) || ts.isLiteralExpression(node) || ts.isTemplateLiteralToken(node)) &&
      pattern.test(node.getText(source))
    ) {
      hit.add(source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  const lines = text.split('\n');
  return [...hit].sort((a, b) => a - b).map((line) => ({ line, text: lines[line - 1]!.trim() }));
}

/**
 * Where src/ outside src/platforms/ still names Android in code (issue 41),
 * file:line, but for what is allowed to: the registration list of the
 * sources, the Platform type, and the cloud's own words (DeviceInfo's
 * isAndroid and its platformName ANDROID, src/cloud/types.ts, and the two
 * places that carry them, src/report/split-put.ts and src/report/stored-device.ts).
 */
function androidOutsidePlatforms(): string[] {
  const allowed = (file: string, text: string): boolean =>
    file === 'src/agent/platforms.ts' ||
    (file === 'src/devices/record.ts' && /^export type Platform = /.test(text)) ||
    (['src/cloud/types.ts', 'src/report/split-put.ts', 'src/report/stored-device.ts'].includes(file) && /isAndroid|'ANDROID'/.test(text));
  return files
    .filter((f) => f.startsWith('src/') && !f.startsWith('src/platforms/'))
    .flatMap((file) => codeLines(file, /android/i).flatMap(({ line, text }) => (allowed(file, text) ? [] : [`${file}:${line}: ${text}`])));
}

/**
 * The folder of each feature src/agent/features.ts registers: where the file
 * of its builder (a `*feature.ts`, the contract's own file aside) lies, as
 * the import graph resolves it.
 */
function featureFolders(): string[] {
  const contract = 'src/devices/feature.ts';
  const builders = edges.filter((e) => e.from === 'src/agent/features.ts' && /feature\.ts$/.test(e.to) && e.to !== contract).map((e) => e.to);
  return [...new Set(builders.map((f) => f.slice(0, f.lastIndexOf('/') + 1)))].sort();
}

describe('docs/design/architecture.md', () => {
  it('names only paths that exist (NAME stands for the one being added)', () => {
    const paths = [...doc.matchAll(/`((?:src|test|docs)\/[^`\s]*)`/g)].map((m) => m[1]!).filter((p) => !p.includes('NAME'));
    expect(paths.length).toBeGreaterThan(20);
    const missing = paths.filter((p) => !existsSync(new URL(p.replace(/\/$/, ''), root)));
    expect(missing).toEqual([]);
  });

  it('lists every folder of src/ in its module map', () => {
    const folders = readdirSync(new URL('src/', root), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.length).toBeGreaterThan(10);
    expect(folders.filter((f) => !doc.includes(`\`src/${f}/\``))).toEqual([]);
  });
});

describe('the rules the code keeps', () => {
  it('1. folders depend downwards: every import goes to its own folder or a layer below', () => {
    const list = layers();
    const rank = new Map(list.flatMap((folders, i) => folders.map((f) => [f, i] as const)));
    const folders = new Set(files.map((f) => folderOf(f)).filter((f): f is string => f !== undefined));
    expect([...folders].filter((f) => !rank.has(f)).sort(), 'folders missing from the layers').toEqual([]);
    const upward = edges
      .map((e) => ({ ...e, a: folderOf(e.from)!, b: folderOf(e.to)! }))
      .filter((e) => e.a !== e.b && rank.get(e.a)! >= rank.get(e.b)!)
      .map((e) => `${e.from} -> ${e.to}`);
    expect(upward).toEqual([]);
  });

  it("2. only a device's source writes its record (through the registry) and its reading; only the registry opens and closes a reading", () => {
    const records = callersOf('src/devices/registry.ts', ['sync', 'setUsb']);
    const readings = callersOf('src/devices/readings.ts', ['asked', 'settled', 'answered', 'failed', 'noticed', 'forgive', 'identify']);
    const lifecycle = callersOf('src/devices/readings.ts', ['open', 'close']);
    expect(records.size).toBeGreaterThan(0);
    expect(readings.size).toBeGreaterThan(0);
    expect([...records.keys(), ...readings.keys()].filter((f) => !f.startsWith('src/platforms/'))).toEqual([]);
    expect([...lifecycle.keys()]).toEqual(['src/devices/registry.ts']);
  });

  it('3. nothing calls back into the agent: only src/cli/ and src/agent/ import src/agent/', () => {
    const back = edges.filter((e) => e.to.startsWith('src/agent/') && !e.from.startsWith('src/agent/') && !e.from.startsWith('src/cli/'));
    expect(back.map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
  });

  it('4. the plan is a complete value: ReportPlan names the request, complete, listed and the deadline', () => {
    const source = ts.createSourceFile('planner.ts', readFileSync(new URL('src/timing/planner.ts', root), 'utf8'), ts.ScriptTarget.Latest, true);
    const plan = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'ReportPlan');
    const members = plan?.members.map((m) => (m.name && ts.isIdentifier(m.name) ? m.name.text : '')) ?? [];
    expect(members).toEqual(expect.arrayContaining(['request', 'complete', 'listed', 'deadline']));
  });

  it('5. the services start in order: status, each source, the actions, the report loop', () => {
    const agent = readFileSync(new URL('src/agent/agent.ts', root), 'utf8');
    const list = /this\.services = \[([\s\S]*?)\];/.exec(agent)?.[1] ?? '';
    const order = ['status.start()', 'sources.map(', '...actions', 'loop.start()'].map((part) => list.indexOf(part));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('6. the report path and timing name no platform', () => {
    const timing = readdirSync(new URL('src/timing/', root)).map((f) => `src/timing/${f}`);
    const path = [
      'src/report/reporter.ts',
      'src/report/execute.ts',
      'src/agent/agent.ts',
      'src/agent/report-loop.ts',
      'src/report/run.ts',
      'src/status/views.ts',
      'src/cli/inventory.ts',
    ];
    const named = [...path, ...timing].flatMap((file) =>
      identifiers(file)
        .filter((id) => /android|ios(?![a-z])|adb|usbmux/i.test(id))
        .map((id) => `${file}: ${id}`),
    );
    expect(named).toEqual([]);
  });

  it('1. the platform sits below the features: no platform file imports a feature, an action, the health rules or the hub', () => {
    const above = ['src/features/', 'src/actions/', 'src/features/health/', 'src/hub/'];
    const up = edges.filter((e) => e.from.startsWith('src/platforms/') && above.some((folder) => e.to.startsWith(folder)));
    expect(up.map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
  });

  it('6. the platforms are handed no feature: no platform file imports the DeviceFeature contract, so none can call a feature', () => {
    const reach = edges.filter((e) => e.from.startsWith('src/platforms/') && e.to === 'src/devices/feature.ts');
    expect(reach.map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
  });

  it('6. no platform name outside src/platforms/: the word android in no code line (issue 41)', () => {
    // A platform's words come through what it offers (src/platforms/*.ts capabilities).
    expect(androidOutsidePlatforms()).toEqual([]);
  });

  it("8. the views name no feature: src/status/, src/report/ and src/cli/ import nothing from a feature's folder", () => {
    const folders = featureFolders();
    expect(folders).toEqual(expect.arrayContaining(['src/features/samsung/', 'src/features/charge/', 'src/features/health/']));
    // A feature's settings fragment is of the config layer (folderOf): the views may read the settings.
    const internal = (file: string): boolean => folderOf(file) !== 'config' && folders.some((folder) => file.startsWith(folder));
    const named = edges
      .filter((e) => ['src/status/', 'src/report/', 'src/cli/'].some((view) => e.from.startsWith(view)) && internal(e.to))
      .map((e) => `${e.from} -> ${e.to}`);
    expect(named).toEqual([]);
  });

  it('9. one home per feature: each registered factory lies in its own folder of src/features/; build.ts, the context and src/doctor/ import from none', () => {
    const folders = featureFolders();
    expect(folders.length).toBeGreaterThanOrEqual(9);
    expect(folders.filter((f) => !/^src\/features\/[\w-]+\/$/.test(f))).toEqual([]);
    const naming = (file: string): boolean => folderOf(file) === 'features' && /^src\/features\/[\w-]+\//.test(file);
    const named = edges
      .filter((e) => (e.from === 'src/agent/build.ts' || e.from === 'src/features/context.ts' || e.from.startsWith('src/doctor/')) && naming(e.to))
      .map((e) => `${e.from} -> ${e.to}`);
    expect(named).toEqual([]);
  });

  it("9. no feature builds a runner, a look-up or a booking gate: those are the wiring's and the test beds'", () => {
    const built = files
      .filter((f) => f.startsWith('src/features/'))
      .flatMap((file) => codeLines(file, /^(ActionRunner|DeviceMapping|bookingGateOf)$/).map(({ line, text }) => `${file}:${line}: ${text}`))
      .filter((l) => /new ActionRunner|new DeviceMapping|bookingGateOf\(/.test(l));
    expect(built).toEqual([]);
  });

  it('7. the record holds identity and lifecycle only: DeviceRecord has the fields the page lists, and no other', () => {
    const rule = /^7\. \*\*The record holds identity and lifecycle only\*\*([\s\S]*?)(?=\n\S|\n\n)/m.exec(doc)?.[1] ?? '';
    const listed = /no other:([\s\S]*?)\. A feature/.exec(rule)?.[1] ?? '';
    const stated = [...listed.matchAll(/`(\w+)`/g)].map((m) => m[1]!);
    expect(stated.length).toBeGreaterThan(5);
    const source = ts.createSourceFile('record.ts', readFileSync(new URL('src/devices/record.ts', root), 'utf8'), ts.ScriptTarget.Latest, true);
    const record = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'DeviceRecord');
    const fields = record?.members.map((m) => (m.name && ts.isIdentifier(m.name) ? m.name.text : '')) ?? [];
    expect(fields.sort()).toEqual([...stated].sort());
  });
});
