import { describe, expect, it } from 'vitest';
import { selectors, templateQueries } from './promql-selectors.js';

const names = (expr: string): Array<string | undefined> => selectors(expr).map((s) => s.name);

describe('selectors', () => {
  it('finds the metrics of arithmetic, comparisons and set operators', () => {
    expect(names('time() - device_agent_last_success_timestamp_seconds > 600')).toEqual(['device_agent_last_success_timestamp_seconds']);
    expect(names('a == 1 and on (instance, job, udid) time() - b < 6e2 unless c')).toEqual(['a', 'b', 'c']);
    expect(names('0.9 * max_over_time(x:y:sum[1h]) >= bool .5')).toEqual(['x:y:sum']);
  });

  it('skips label lists of aggregations and vector matching, before or after the body', () => {
    expect(names('sum without (state) (device_agent_devices) or 0 * last')).toEqual(['device_agent_devices', 'last']);
    expect(names('sum(rate(r[5m])) by (instance, result)')).toEqual(['r']);
    expect(names('topk(10, t * on (instance, job, udid) group_left (model, usb) info)')).toEqual(['t', 'info']);
    expect(names('a * ignoring(result) group_right b')).toEqual(['a', 'b']);
    expect(names('count_values("value", m) > bool 0')).toEqual(['m']);
  });

  it('reads label matchers with every operator and quote, escapes included', () => {
    expect(selectors(`m{problem="battery_hot", instance=~'lab-.*',job!="x\\"y",  udid!~\`a|b\`}`)).toEqual([
      {
        name: 'm',
        matchers: [
          { label: 'problem', op: '=', value: 'battery_hot' },
          { label: 'instance', op: '=~', value: 'lab-.*' },
          { label: 'job', op: '!=', value: 'x"y' },
          { label: 'udid', op: '!~', value: 'a|b' },
        ],
      },
    ]);
    expect(selectors('{__name__="n",a="b"}')).toEqual([
      {
        name: undefined,
        matchers: [
          { label: '__name__', op: '=', value: 'n' },
          { label: 'a', op: '=', value: 'b' },
        ],
      },
    ]);
  });

  it('does not take words in strings, durations, offsets or subqueries for metrics', () => {
    expect(names('changes(rec:x:bool[1h]) >= 3 # a comment naming not_a_metric')).toEqual(['rec:x:bool']);
    expect(names('max_over_time((a - b)[30m:1m] offset 1h30m)')).toEqual(['a', 'b']);
    expect(names('label_replace(m, "dst", "not_a_metric", "src", "(.*)")')).toEqual(['m']);
    expect(names('count(x == 0) or vector(0)')).toEqual(['x']);
  });

  it('throws on what it does not know, a Grafana variable left in for one', () => {
    expect(() => selectors('rate(x[$__rate_interval])')).not.toThrow(); // inside a range: skipped whole
    expect(() => selectors('x / $scale')).toThrow(/unexpected "\$"/);
    expect(() => selectors('x{a=b}')).toThrow(/not a string/);
    expect(() => selectors('x{a="b}')).toThrow(/unterminated/);
  });
});

describe('templateQueries', () => {
  it('takes the query of each printf ... | query, with %q as an empty string', () => {
    const template =
      'Device {{ $labels.udid }}{{ with printf "device_agent_device_info{instance=%q,udid=%q}" $labels.instance $labels.udid | query }}{{ with first . }} ({{ .Labels.model }}){{ end }}{{ end }}' +
      ' {{ with printf "ceil(changes(r{u=\\"%s\\"}[1h]) / 2)" $labels.udid | query }}{{ . | first | value }}{{ end }} {{ printf "%.1f" $value }}';
    expect(templateQueries(template)).toEqual(['device_agent_device_info{instance="",udid=""}', 'ceil(changes(r{u=""}[1h]) / 2)']);
  });
});
