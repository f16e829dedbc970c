import { describe, expect, it } from 'vitest';
import { dashboard, expand, panelQueries, variableQueries } from './dashboard.js';
import { selectors } from './promql-selectors.js';

// The dashboard's shape: what Grafana needs to import it and lay it out.
// What its queries read and return is checked against three live agents in
// dashboard.e2e.test.ts, and its fields against Grafana's schema in
// grafana-schema.test.ts.

const d = dashboard();
const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };

describe('Grafana dashboard', () => {
  it('has a stable uid, a Prometheus data source variable and a host variable', () => {
    expect(d.uid).toBe('device-agent-lab');
    expect(d.templating.list.find((v) => v.name === 'datasource')).toMatchObject({ type: 'datasource', query: 'prometheus' });
    expect(variableQueries(d)).toEqual([{ variable: 'instance', metric: 'device_agent_info', label: 'instance' }]);
    expect(d.templating.list.find((v) => v.name === 'instance')).toMatchObject({ allValue: '.*' });
  });

  it('gives every panel a unique id and a place on the 24-column grid that no other panel takes', () => {
    const ids = d.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const titles = d.panels.map((p) => p.title);
    expect(new Set(titles).size, 'panel titles are unique').toBe(titles.length);
    const cells = new Map<string, string>();
    for (const p of d.panels) {
      const { x, y, w, h } = p.gridPos;
      expect(x >= 0 && w > 0 && x + w <= 24 && h > 0, `${p.title}: ${JSON.stringify(p.gridPos)}`).toBe(true);
      for (let row = y; row < y + h; row++)
        for (let col = x; col < x + w; col++) {
          const other = cells.get(`${row},${col}`);
          expect(other, `${p.title} overlaps ${other}`).toBeUndefined();
          cells.set(`${row},${col}`, p.title);
        }
    }
  });

  it('queries the chosen data source from every panel and target, and filters every agent series by host', () => {
    const panels = d.panels.filter((p) => p.type !== 'row');
    expect(panels.length).toBeGreaterThan(10);
    for (const p of panels) {
      expect(p.datasource, p.title).toEqual(DATASOURCE);
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
      const refIds = p.targets!.map((t) => t.refId);
      expect(new Set(refIds).size, p.title).toBe(refIds.length);
      for (const t of p.targets!) expect(t.datasource, `${p.title} ${t.refId}`).toEqual(DATASOURCE);
    }
    for (const q of panelQueries(d)) {
      // Grafana's variables are the only $ in a query; with them put in, the query is PromQL.
      for (const s of selectors(expand(q.expr))) {
        expect(s.matchers, `${q.panel} ${q.refId}: ${s.name} not filtered by $instance`).toContainEqual({ label: 'instance', op: '=~', value: '.*' });
      }
    }
  });
});
