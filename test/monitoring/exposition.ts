// Prometheus's text format (exposition formats, "Text-based format") read
// back into samples, as Prometheus's own parser reads what a scrape gives:
// a label whose value is empty is no label, and NaN and ±Inf are numbers.

export type Labels = Record<string, string>;

export interface Sample {
  name: string;
  labels: Labels;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/g;

function unescape(value: string): string {
  return value.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
}

/** `keepEmpty`: keep labels whose value is empty, as the text has them (Prometheus drops them). */
export function parseExposition(text: string, keepEmpty = false): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (!m) throw new Error(`not a sample line of the text format: ${line}`);
    const labels: Labels = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) if (keepEmpty || l[2] !== '') labels[l[1]!] = unescape(l[2]!);
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

/** Each metric family the text serves (its # TYPE line), with the label names and values of its samples. */
export function servedFamilies(text: string): Map<string, Map<string, Set<string>>> {
  const families = new Map<string, Map<string, Set<string>>>();
  for (const m of text.matchAll(/^# TYPE (\S+) \S+$/gm)) families.set(m[1]!, new Map());
  for (const s of parseExposition(text, true)) {
    // A histogram's samples (prom-client's nodejs_gc_duration_seconds) are its _bucket, _sum and _count.
    const labels = families.get(s.name) ?? families.get(s.name.replace(/_(bucket|sum|count)$/, ''));
    if (!labels) throw new Error(`sample of a family without # TYPE: ${s.name}`);
    for (const [k, v] of Object.entries(s.labels)) {
      if (!labels.has(k)) labels.set(k, new Set());
      labels.get(k)!.add(v);
    }
  }
  return families;
}
