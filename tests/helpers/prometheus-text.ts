/** One sample of a Prometheus text exposition: `name{label="value",...} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a scrape (comments and blank lines skipped), read as Prometheus reads the text format. */
export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const [, name = '', labelText = '', value = ''] = match;
    const labels: Record<string, string> = {};
    for (const [, key = '', raw = ''] of labelText.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[key] = raw.replace(/\\(.)/g, '$1');
    samples.push({ name, labels, value: value === 'NaN' ? Number.NaN : Number(value) });
  }
  return samples;
}

/** The sum of the samples named `name` whose labels include all of `labels` (0 when none). */
export function sampleValue(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
}

/** A metric family as its `# HELP` and `# TYPE` lines declare it. */
export interface MetricFamily {
  name: string;
  type: string;
  help: string;
}

export function metricFamilies(text: string): MetricFamily[] {
  const help = new Map([...text.matchAll(/^# HELP (\S+) ?(.*)$/gm)].map(([, name = '', words = '']) => [name, words]));
  return [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name = '', type = '']) => ({ name, type, help: help.get(name) ?? '' }));
}

/** Units other than the base ones Prometheus names (seconds, bytes): promtool refuses them in a name. */
const NON_BASE_UNITS = /_(milliseconds|microseconds|nanoseconds|minutes|hours|days|kilobytes|megabytes|gigabytes|bits)(_|$)/;

/**
 * What `promtool check metrics` reports about the names in an exposition: a counter without the `_total`
 * suffix, another type with it, `_sum`/`_count`/`_bucket` outside histograms and summaries, camelCase,
 * non-base units, and missing help.
 */
export function namingProblems(text: string): string[] {
  return metricFamilies(text).flatMap(({ name, type, help }) => {
    const problems: string[] = [];
    if (type === 'counter' && !name.endsWith('_total')) problems.push('counter metrics should have "_total" suffix');
    if (type !== 'counter' && name.endsWith('_total')) problems.push('non-counter metrics should not have "_total" suffix');
    if (type !== 'histogram' && type !== 'summary' && /_(sum|count|bucket)$/.test(name))
      problems.push('non-histogram and non-summary metrics should not have "_sum", "_count" or "_bucket" suffix');
    if (/[A-Z]/.test(name)) problems.push('metric names should be written in snake_case not camelCase');
    if (NON_BASE_UNITS.test(name)) problems.push('use base units (seconds, bytes)');
    if (help === '') problems.push('no help text');
    return problems.map((problem) => `${name} (${type}): ${problem}`);
  });
}
