import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The Grafana dashboard as the tests read it: its panels' queries and its
// variables' queries, with Grafana's variables put in as Grafana would for
// "All hosts".

export const DASHBOARD_FILE = fileURLToPath(new URL('../../deploy/monitoring/device-agent.dashboard.json', import.meta.url));

export interface Target {
  refId: string;
  expr: string;
  instant?: boolean;
  datasource?: { type: string; uid: string };
}

export interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  datasource?: { type: string; uid: string };
  targets?: Target[];
}

export interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: Array<{ name: string; type: string; query: string | { query: string }; allValue?: string }> };
}

export const dashboard = (): Dashboard => JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as Dashboard;

/** Grafana's variables as "All" puts them in, and $__rate_interval for a 1 s scrape interval. */
export function expand(expr: string, rateInterval = '10s'): string {
  return expr.replace(/\$\{?__rate_interval\}?/g, rateInterval).replace(/\$\{?instance\}?/g, '.*');
}

export interface PanelQuery {
  panel: string;
  refId: string;
  expr: string;
}

export function panelQueries(d: Dashboard): PanelQuery[] {
  return d.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, refId: t.refId, expr: t.expr })));
}

/** label_values(METRIC, LABEL) of each query variable, as a metric and a label. */
export function variableQueries(d: Dashboard): Array<{ variable: string; metric: string; label: string }> {
  return d.templating.list
    .filter((v) => v.type === 'query')
    .map((v) => {
      const query = typeof v.query === 'string' ? v.query : v.query.query;
      const m = /^label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\s*,\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\)$/.exec(query);
      if (!m) throw new Error(`variable ${v.name}: only label_values(METRIC, LABEL) is read here, not ${query}`);
      return { variable: v.name, metric: m[1]!, label: m[2]! };
    });
}
