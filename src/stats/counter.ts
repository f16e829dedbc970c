// A feature's own counter, kept in AgentStats by a key the feature declares once beside the code that counts (as a facet
// is kept in the registry), so that the stats name no feature: the code that counts reaches it through
// `stats.counter(KEY)`, and /metrics serves the keys the feature names in its `counters`.
import type { Metric } from '../util/metric.js';

/** A counter's series: its name, help text and label names, declared once by its owner. */
export interface CounterKey {
  readonly name: string;
  readonly help: string;
  readonly labels: readonly string[];
  /** The label values served from 0 before they are counted: Prometheus's increase() misses a series' first sample. */
  readonly known: ReadonlyArray<readonly string[]>;
}

export function counterKey(name: string, help: string, labels: readonly string[], known: ReadonlyArray<readonly string[]> = []): CounterKey {
  return { name, help, labels, known };
}

/** Counts by label values, in the order each combination was first counted. */
export class Counter {
  private readonly counts = new Map<string, { values: readonly string[]; value: number }>();

  constructor(readonly key: CounterKey) {
    for (const values of key.known) this.plus(0, ...values);
  }

  /** One more, for these label values (one per label of the key, in its order). */
  add(...values: string[]) {
    this.plus(1, ...values);
  }

  /** `amount` more (seconds, not a count), for these label values. */
  plus(amount: number, ...values: string[]) {
    const id = values.join('\u0000');
    const entry = this.counts.get(id);
    if (entry) entry.value += amount;
    else this.counts.set(id, { values, value: amount });
  }

  /** The count for these label values; 0 when never counted. */
  get(...values: string[]) {
    return this.counts.get(values.join('\u0000'))?.value ?? 0;
  }

  /** The series, labels in the key's order. */
  metric(): Metric {
    const { name, help, labels } = this.key;
    return {
      name,
      help,
      type: 'counter',
      // A counter without labels is served from 0, as Prometheus expects of one; one with labels has a series per combination counted.
      samples:
        !labels.length && this.counts.size === 0
          ? [{ value: 0 }]
          : [...this.counts.values()].map(({ values, value }) =>
              labels.length ? { labels: Object.fromEntries(labels.map((l, i) => [l, values[i] ?? ''])), value } : { value },
            ),
    };
  }
}
