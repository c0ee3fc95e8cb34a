// A strict parser of the Prometheus text exposition format 0.0.4, for the tests of /metrics. prom-client
// writes the format but has no parser, and the npm parsers accept malformed names and values; this one
// throws on anything the format does not allow, naming the line.
// https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  type: MetricType;
  help?: string;
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set<string>(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
/** What Go's ParseFloat reads, which the format refers to; it matches NaN and Inf in any case. */
const FLOAT = /^(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?inf(?:inity)?|nan)$/i;
const TIMESTAMP = /^-?\d+$/;

export class ExpositionError extends Error {
  override name = 'ExpositionError';
}

/** Every family by name. Throws an ExpositionError on the first line that breaks the format. */
export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  if (text !== '' && !text.endsWith('\n')) throw new ExpositionError('the last line does not end with \\n');
  const families = new Map<string, MetricFamily>();
  /** Families whose samples have ended: another family's line came after them. */
  const closed = new Set<string>();
  const seenSeries = new Set<string>();
  const typed = new Set<string>();
  let current: MetricFamily | undefined;

  const lines = text.split('\n').slice(0, -1);
  lines.forEach((line, index) => {
    const fail = (why: string): never => {
      throw new ExpositionError(`line ${index + 1}: ${why}: ${JSON.stringify(line)}`);
    };
    if (line.trim() === '') return;
    const enter = (name: string): MetricFamily => {
      if (current && current.name !== name) closed.add(current.name);
      if (closed.has(name)) fail(`the lines of ${name} are not together`);
      let family = families.get(name);
      if (!family) {
        family = { name, type: 'untyped', samples: [] };
        families.set(name, family);
      }
      current = family;
      return family;
    };

    if (line.startsWith('#')) {
      const match = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!match) return; // Any other comment is allowed and means nothing.
      const [, keyword, name = '', rest = ''] = match;
      if (!METRIC_NAME.test(name)) fail('bad metric name');
      const family = enter(name);
      if (keyword === 'HELP') {
        if (family.help !== undefined) fail('a second HELP');
        family.help = unescape(rest, false, fail);
      } else {
        if (!TYPES.has(rest)) fail('unknown type');
        if (family.samples.length > 0) fail('TYPE after samples');
        if (typed.has(name)) fail('a second TYPE');
        family.type = rest as MetricType;
        typed.add(name);
      }
      return;
    }

    const sample = parseSampleLine(line, fail);
    const familyName = familyOf(sample.name, families);
    const family = enter(familyName);
    checkSampleAgainstType(family, sample, fail);
    const series = `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`;
    if (seenSeries.has(series)) fail('a repeated series');
    seenSeries.add(series);
    family.samples.push(sample);
  });

  for (const family of families.values()) {
    if (family.type === 'histogram') checkHistogram(family);
  }
  return families;
}

function parseSampleLine(line: string, fail: (why: string) => never): Sample {
  const nameMatch = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line);
  if (!nameMatch) return fail('bad metric name');
  const name = nameMatch[0];
  let rest = line.slice(name.length);
  const labels: Record<string, string> = {};
  if (rest.startsWith('{')) {
    rest = rest.slice(1);
    while (!rest.startsWith('}')) {
      const label = /^([^=]*)="((?:[^"\\\n]|\\.)*)"(,?)/.exec(rest);
      if (!label) return fail('bad label');
      const [whole, labelName = '', escaped = '', comma] = label;
      if (!LABEL_NAME.test(labelName) || labelName.startsWith('__')) fail(`bad label name ${labelName}`);
      if (labelName in labels) fail(`label ${labelName} twice`);
      labels[labelName] = unescape(escaped, true, fail);
      rest = rest.slice(whole.length);
      if (comma === '' && !rest.startsWith('}')) fail('labels not separated by a comma');
    }
    rest = rest.slice(1);
  }
  const parts = rest.split(' ');
  if (parts[0] !== '' || parts.length < 2 || parts.length > 3) return fail('expected " value [timestamp]"');
  const [, value = '', timestamp] = parts;
  if (!FLOAT.test(value)) fail('bad value');
  if (timestamp !== undefined && !TIMESTAMP.test(timestamp)) fail('bad timestamp');
  return { name, labels, value: numberOf(value) };
}

function numberOf(text: string | undefined): number {
  if (text === undefined || /^nan$/i.test(text)) return Number.NaN;
  return Number(text.replace(/^([+-]?)inf(inity)?$/i, '$1Infinity'));
}

/** `x_bucket`, `x_sum` and `x_count` belong to the histogram or summary `x` when one is declared. */
function familyOf(sampleName: string, families: Map<string, MetricFamily>): string {
  const base = /^(.*)_(bucket|sum|count)$/.exec(sampleName)?.[1];
  const declared = base === undefined ? undefined : families.get(base);
  if (declared && (declared.type === 'histogram' || declared.type === 'summary')) return base as string;
  return sampleName;
}

function checkSampleAgainstType(family: MetricFamily, sample: Sample, fail: (why: string) => never): void {
  const suffix = sample.name.slice(family.name.length);
  switch (family.type) {
    case 'histogram':
      if (!['_bucket', '_sum', '_count'].includes(suffix)) fail('not a histogram sample');
      if ((suffix === '_bucket') !== 'le' in sample.labels) fail('le belongs on buckets alone');
      if (suffix === '_bucket' && !FLOAT.test(sample.labels.le ?? '')) fail('bad le');
      break;
    case 'summary':
      if (!['', '_sum', '_count'].includes(suffix)) fail('not a summary sample');
      if ((suffix === '') !== 'quantile' in sample.labels) fail('quantile belongs on quantiles alone');
      break;
    case 'counter':
      if (suffix !== '' || !(sample.value >= 0)) fail('a counter sample must be its own name, >= 0');
      break;
    default:
      if (suffix !== '') fail('a sample named apart from its family');
  }
}

/** Per label set: buckets in rising `le` order, counts not falling, a +Inf bucket equal to _count. */
function checkHistogram(family: MetricFamily): void {
  const bySeries = new Map<string, Sample[]>();
  for (const sample of family.samples) {
    const key = JSON.stringify(
      Object.entries(sample.labels)
        .filter(([name]) => name !== 'le')
        .sort(),
    );
    bySeries.set(key, [...(bySeries.get(key) ?? []), sample]);
  }
  for (const [labels, samples] of bySeries) {
    const where = `${family.name}${labels}`;
    const buckets = samples.filter((s) => s.name.endsWith('_bucket'));
    const count = samples.find((s) => s.name.endsWith('_count'));
    if (!count || !samples.some((s) => s.name.endsWith('_sum'))) {
      throw new ExpositionError(`${where}: no _sum or _count`);
    }
    for (let i = 1; i < buckets.length; i++) {
      const [previous, bucket] = [buckets[i - 1] as Sample, buckets[i] as Sample];
      if (numberOf(bucket.labels.le) <= numberOf(previous.labels.le))
        throw new ExpositionError(`${where}: buckets out of order`);
      if (bucket.value < previous.value) throw new ExpositionError(`${where}: bucket counts fall`);
    }
    const last = buckets.at(-1);
    if (last?.labels.le !== '+Inf') throw new ExpositionError(`${where}: no +Inf bucket`);
    if (last.value !== count.value) throw new ExpositionError(`${where}: +Inf bucket differs from _count`);
  }
}

/** HELP text allows \\ and \n escapes; label values \\, \" and \n. */
function unescape(text: string, quoted: boolean, fail: (why: string) => never): string {
  return text.replace(/\\(.)/g, (_, escaped: string) => {
    if (escaped === 'n') return '\n';
    if (escaped === '\\' || (quoted && escaped === '"')) return escaped;
    return fail(`bad escape \\${escaped}`);
  });
}
