import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { DASHBOARD_FILE } from './dashboard.js';

// The dashboard against Grafana's own schema: the types @grafana/schema
// publishes for a dashboard (generated from Grafana's CUE kinds), and for
// the options of each panel type it uses (stat, table, timeseries). The
// JSON is written into a TypeScript module as a literal that `satisfies`
// them, and the compiler checks it: a field Grafana does not know, a value
// of the wrong type or outside an enum (graphTooltip, a variable's sort) is
// an error. JSON has no TypeScript string enums: each is read as the union of
// its values, which is what Grafana's JSON holds. Panel options and field
// defaults are checked as Partial: Grafana fills what a panel leaves out from
// its plugin's defaults.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PANEL_TYPES: Record<string, string> = {
  stat: 'StatPanelCfg',
  table: 'TablePanelCfg',
  timeseries: 'TimeSeriesPanelCfg',
};

interface PanelJson {
  id: number;
  type: string;
  options?: unknown;
  fieldConfig?: { defaults?: { custom?: unknown } };
}

/** The module the compiler checks: the dashboard, and each panel's options and custom field defaults on their own. */
function schemaModule(json: string): string {
  const panels = (JSON.parse(json) as { panels: PanelJson[] }).panels;
  const imports = Object.entries(PANEL_TYPES).map(
    ([type, cfg]) => `import type * as ${type} from '@grafana/schema/dist/esm/raw/composable/${type}/panelcfg/x/${cfg}_types.gen';`,
  );
  const checks = panels.flatMap((p) => {
    if (p.type === 'row') return [];
    if (!(p.type in PANEL_TYPES)) return [`const unknownType${p.id}: 'a panel type checked here' = ${JSON.stringify(p.type)};`];
    const lines = [`export const options${p.id} = ${JSON.stringify(p.options ?? {})} satisfies Partial<Plain<${p.type}.Options>>;`];
    if (p.type !== 'stat' && p.fieldConfig?.defaults?.custom !== undefined)
      lines.push(`export const custom${p.id} = ${JSON.stringify(p.fieldConfig.defaults.custom)} satisfies Partial<Plain<${p.type}.FieldConfig>>;`);
    return lines;
  });
  return [
    `import type { Dashboard } from '@grafana/schema';`,
    ...imports,
    // A string enum as the union of its values, through every array and object.
    'type Plain<T> = T extends string ? `${T}` : T extends readonly (infer U)[] ? Plain<U>[] : T extends object ? { [K in keyof T]: Plain<T[K]> } : T;',
    `export const dashboard = ${json.trim()} satisfies Plain<Dashboard>;`,
    ...checks,
  ].join('\n');
}

/** The compiler's errors for the module, each with its line. */
function schemaErrors(source: string): string[] {
  const fileName = join(ROOT, 'test/monitoring/dashboard-schema-check.ts');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
    types: [],
  };
  const base = ts.createCompilerHost(options);
  const host: ts.CompilerHost = {
    ...base,
    getSourceFile: (name, version, ...rest) =>
      name === fileName ? ts.createSourceFile(name, source, version, true) : base.getSourceFile(name, version, ...rest),
    fileExists: (name) => name === fileName || base.fileExists(name),
    readFile: (name) => (name === fileName ? source : base.readFile(name)),
  };
  const program = ts.createProgram([fileName], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
    return `line ${line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

describe("the dashboard against Grafana's schema (@grafana/schema)", () => {
  const json = readFileSync(DASHBOARD_FILE, 'utf8');

  it('is a Dashboard, and each panel has options (and field defaults) of its panel type', () => {
    expect(schemaErrors(schemaModule(json))).toEqual([]);
  }, 60_000);

  it('would refuse a field Grafana does not know, a value outside an enum, and options of the wrong type', () => {
    const d = JSON.parse(json) as { graphTooltip: number; panels: Array<Record<string, unknown>>; templating: { list: Array<Record<string, unknown>> } };
    d.graphTooltip = 7;
    d.templating.list[1]!.sort = 9;
    d.panels[1]!.gridPos = { h: 4, w: 4, x: 0, y: 1, width: 4 };
    (d.panels[1]!.options as Record<string, unknown>).colorMode = 42;
    const errors = schemaErrors(schemaModule(JSON.stringify(d, null, 2))).join('\n');
    expect(errors).toMatch(/'7' is not assignable to type 'DashboardCursorSync/);
    expect(errors).toMatch(/'9' is not assignable to type 'VariableSort/);
    expect(errors).toMatch(/'"width"' does not exist in type '{ h: number;/);
    expect(errors).toMatch(/'number' is not assignable to type '"value" | "none" | "background"/);
  }, 60_000);
});
