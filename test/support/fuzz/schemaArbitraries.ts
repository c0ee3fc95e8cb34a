// fast-check arbitraries read off the contract's schemas: values that satisfy a schema, and values that
// break exactly one of its rules, each named by the rule it breaks. Only the keywords openapi.yaml and
// openapi.v2.yaml use for requests are understood; any other keyword fails loudly so the generator never silently lags
// behind the document.
import fc from 'fast-check';
import type { Json } from '../document.js';

export interface Broken<Value = unknown> {
  rule: string;
  value: Value;
}

const UNDERSTOOD = new Set([
  'type',
  'format',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'properties',
  'required',
  'minProperties',
  'additionalProperties',
  'items',
  'minItems',
  'maxItems',
  'uniqueItems',
  'enum',
  'pattern',
  'default',
  'description',
  'example',
]);

/** The formats understood, by type; any other fails loudly too. */
const FORMATS: Record<string, string[]> = { integer: ['int32', 'int64'], string: ['date-time'] };

const INT_RANGES: Record<string, [bigint, bigint]> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
};

function checkUnderstood(schema: Json): void {
  const unknown = Object.keys(schema).filter((keyword) => !UNDERSTOOD.has(keyword));
  if (unknown.length > 0) throw new Error(`the request generator does not know ${unknown.join(', ')}`);
  const format = schema.format as string | undefined;
  if (format !== undefined && !FORMATS[schema.type as string]?.includes(format))
    throw new Error(`the request generator does not know format ${format} of type ${String(schema.type)}`);
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/**
 * RFC 3339 date-times of every form: any zone offset, with or without a fraction of any length, lowercase
 * `t`/`z`, at the edges of the years a date-time can write.
 */
export const dateTimeText: fc.Arbitrary<string> = fc
  .record({
    date: fc.date({ min: new Date('0001-01-02T00:00:00Z'), max: new Date('9999-12-30T23:59:59Z'), noInvalidDate: true }),
    offsetMinutes: fc.oneof(fc.constant(0), fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 })),
    zulu: fc.constantFrom('Z', 'z', '+00:00', '-00:00'),
    fraction: fc.option(fc.stringMatching(/^[0-9]{1,9}$/), { nil: undefined }),
    separator: fc.constantFrom('T', 't'),
  })
  .map(({ date, offsetMinutes, zulu, fraction, separator }) => {
    const local = new Date(date.getTime() + offsetMinutes * 60_000);
    const zone =
      offsetMinutes === 0
        ? zulu
        : `${offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offsetMinutes) / 60))}:${pad(Math.abs(offsetMinutes) % 60)}`;
    const day = `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}`;
    const time = `${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}`;
    return `${day}${separator}${time}${fraction === undefined ? '' : `.${fraction}`}${zone}`;
  });

/** Text that is no RFC 3339 date-time, each named by what is wrong with it. */
const notDateTimes = fc.constantFrom(
  '2026-12-01',
  '2026-12-01T00:00:00',
  '2026-12-01 00:00Z',
  '2026-13-01T00:00:00Z',
  '2026-02-30T00:00:00Z',
  '2026-12-01T24:00:00Z',
  '2026-12-01T00:60:00Z',
  '2026-12-01T00:00:00+24:00',
  '2026-12-01T00:00:00.Z',
  '26-12-01T00:00:00Z',
  '+002026-12-01T00:00:00Z',
  '1764547200',
  'tomorrow',
  '',
);

function integerRange(schema: Json): [bigint, bigint] {
  const [low, high] = INT_RANGES[(schema.format as string | undefined) ?? 'int64'] ?? INT_RANGES.int64!;
  const minimum = typeof schema.minimum === 'number' ? BigInt(schema.minimum) : low;
  const maximum = typeof schema.maximum === 'number' ? BigInt(schema.maximum) : high;
  return [minimum > low ? minimum : low, maximum < high ? maximum : high];
}

/** Text of every kind: ASCII, any Unicode scalar (astral planes, NUL and controls included). */
function anyText(minLength: number, maxLength: number): fc.Arbitrary<string> {
  const small = Math.min(maxLength, minLength + 40);
  const texts = fc.oneof(
    fc.string({ unit: 'grapheme-ascii', minLength, maxLength: small }),
    fc.string({ unit: 'binary', minLength, maxLength: small }),
    fc.string({ unit: 'grapheme', minLength, maxLength: small }),
    // Lengths at the very edge of the limit, counted in code points as JSON Schema counts them.
    fc
      .integer({ min: Math.max(minLength, maxLength - 2), max: maxLength })
      .chain((length) => fc.string({ unit: 'binary', minLength: length, maxLength: length })),
  );
  // A grapheme can hold several code points; the schema's limits count code points.
  return texts.filter((text) => codePointLength(text) >= minLength && codePointLength(text) <= maxLength);
}

function codePointLength(text: string): number {
  return [...text].length;
}

/** Integer text in range, as a path or query parameter carries it. */
export function validIntegerText(schema: Json): fc.Arbitrary<string> {
  checkUnderstood(schema);
  const [minimum, maximum] = integerRange(schema);
  return fc
    .oneof(
      fc.bigInt({ min: minimum, max: minimum + 20n < maximum ? minimum + 20n : maximum }),
      fc.bigInt({ min: minimum, max: maximum }),
      fc.constant(maximum),
    )
    .map(String);
}

/** Integer-parameter text that breaks one rule: not decimal, out of range, or absurd. */
export function brokenIntegerText(schema: Json): fc.Arbitrary<Broken<string>> {
  const [minimum, maximum] = integerRange(schema);
  const named = (rule: string, values: fc.Arbitrary<string>) => values.map((value) => ({ rule, value }));
  return fc.oneof(
    named('below the minimum', fc.bigInt({ min: minimum - 10n ** 12n, max: minimum - 1n }).map(String)),
    named('above the maximum', fc.bigInt({ min: maximum + 1n, max: maximum + 10n ** 12n }).map(String)),
    named(
      'int64 extremes',
      fc.constantFrom(
        '-9223372036854775808',
        '-9223372036854775809',
        '9223372036854775808',
        '18446744073709551616',
      ),
    ),
    named(
      'not an integer',
      fc.constantFrom(
        '1.5',
        '1e3',
        '0x10',
        '+7',
        ' 7',
        '7 ',
        'true',
        'null',
        '[1]',
        'NaN',
        'Infinity',
        '--1',
      ),
    ),
    named(
      'a wrong type',
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).filter((text) => !/^-?[0-9]+$/.test(text)),
    ),
    named(
      'a huge number',
      fc.integer({ min: 41, max: 4000 }).map((length) => '9'.repeat(length)),
    ),
    named('unicode digits', fc.constantFrom('١٢', '７', '𝟕', '²', '7\u0301')),
    named('a NUL byte', fc.constantFrom('\u0000', '1\u0000', '\u00001')),
  );
}

/** A JSON value that satisfies the schema. */
export function validValue(schema: Json): fc.Arbitrary<unknown> {
  checkUnderstood(schema);
  switch (schema.type) {
    case 'string': {
      if (schema.enum !== undefined) return fc.constantFrom(...(schema.enum as string[]));
      if (schema.format === 'date-time') return dateTimeText;
      const minLength = (schema.minLength as number | undefined) ?? 0;
      const maxLength = (schema.maxLength as number | undefined) ?? 200;
      if (schema.pattern === undefined) return anyText(minLength, maxLength);
      return fc
        .stringMatching(new RegExp(schema.pattern as string, 'u'), { size: 'medium' })
        .filter((text) => codePointLength(text) >= minLength && codePointLength(text) <= maxLength);
    }
    case 'integer': {
      const [minimum, maximum] = integerRange(schema);
      const safe = (value: bigint) =>
        Number(value < -(2n ** 53n) ? -(2n ** 53n) : value > 2n ** 53n ? 2n ** 53n : value);
      return fc.integer({ min: safe(minimum), max: safe(maximum) });
    }
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const lengths = {
        minLength: (schema.minItems as number | undefined) ?? 0,
        maxLength: (schema.maxItems as number | undefined) ?? 5,
      };
      const items = validValue(schema.items as Json);
      return schema.uniqueItems === true
        ? fc.uniqueArray(items, { ...lengths, selector: (item) => JSON.stringify(item) })
        : fc.array(items, lengths);
    }
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Json>;
      const required = new Set((schema.required as string[] | undefined) ?? []);
      const minProperties = (schema.minProperties as number | undefined) ?? 0;
      return fc
        .record(
          Object.fromEntries(
            Object.entries(properties).map(([name, property]) => [name, validValue(property)]),
          ),
          { requiredKeys: [...required] },
        )
        .filter((value) => Object.keys(value).length >= minProperties);
    }
    default:
      throw new Error(`the request generator does not know type ${String(schema.type)}`);
  }
}

const otherTypes: Record<string, fc.Arbitrary<unknown>> = {
  string: fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.constant({}), fc.constant([])),
  integer: fc.oneof(
    fc.string(),
    fc.double({ noInteger: true }),
    fc.boolean(),
    fc.constant(null),
    fc.constant([]),
  ),
  boolean: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.constant({})),
  array: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.constant({})),
  object: fc.oneof(
    fc.string(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.integer(), { maxLength: 3 }),
  ),
};

/** A JSON value that breaks exactly one rule of the schema (possibly deep inside it). */
export function brokenValue(schema: Json): fc.Arbitrary<Broken> {
  checkUnderstood(schema);
  const type = schema.type as string;
  const choices: fc.Arbitrary<Broken>[] = [
    otherTypes[type]!.map((value) => ({ rule: `not a ${type}`, value })),
  ];
  if (type === 'string') choices.push(...brokenStrings(schema));
  if (type === 'array') choices.push(...brokenArrays(schema));
  if (type === 'integer') {
    const [minimum, maximum] = integerRange(schema);
    choices.push(fc.constant({ rule: 'below the minimum', value: Number(minimum) - 1 }));
    if (maximum < 2n ** 53n)
      choices.push(fc.constant({ rule: 'above the maximum', value: Number(maximum) + 1 }));
  }
  if (type === 'object') choices.push(...brokenObject(schema));
  return fc.oneof(...choices);
}

/** Strings that break one rule of a string schema; empty when only another type would. */
function brokenStrings(schema: Json): fc.Arbitrary<Broken<string>>[] {
  const choices: fc.Arbitrary<Broken<string>>[] = [];
  const minLength = (schema.minLength as number | undefined) ?? 0;
  const maxLength = schema.maxLength as number | undefined;
  if (minLength > 0) {
    choices.push(anyText(0, minLength - 1).map((value) => ({ rule: 'shorter than minLength', value })));
  }
  if (maxLength !== undefined) {
    choices.push(
      fc
        .integer({ min: maxLength + 1, max: maxLength + 50 })
        .chain((length) => fc.string({ unit: 'binary', minLength: length, maxLength: length }))
        .filter((text) => codePointLength(text) > maxLength)
        .map((value) => ({ rule: 'longer than maxLength', value })),
    );
  }
  if (schema.enum !== undefined) {
    const allowed = schema.enum as string[];
    choices.push(
      fc
        .oneof(
          anyText(0, 20),
          fc.constantFrom(...allowed.flatMap((value) => [value.toUpperCase(), ` ${value}`, `${value},${value}`])),
        )
        .filter((value) => !allowed.includes(value))
        .map((value) => ({ rule: 'not one of the enum', value })),
    );
  }
  if (schema.pattern !== undefined) {
    const matches = new RegExp(schema.pattern as string, 'u');
    choices.push(
      anyText(minLength, maxLength ?? 200)
        .filter((value) => !matches.test(value))
        .map((value) => ({ rule: 'not matching the pattern', value })),
    );
  }
  if (schema.format === 'date-time') {
    choices.push(notDateTimes.map((value) => ({ rule: 'not a date-time', value })));
  }
  return choices;
}

/** Text that breaks one rule of a string schema, as a query parameter carries it. */
export function brokenText(schema: Json): fc.Arbitrary<Broken<string>> | undefined {
  checkUnderstood(schema);
  const choices = brokenStrings(schema);
  return choices.length > 0 ? fc.oneof(...choices) : undefined;
}

/** Arrays that break one rule of an array schema: too many items, a repeated one, or a broken one. */
function brokenArrays(
  schema: Json,
  brokenItem: (items: Json) => fc.Arbitrary<Broken> | undefined = brokenValue,
): fc.Arbitrary<Broken<unknown[]>>[] {
  const items = schema.items as Json;
  const valid = validValue(schema) as fc.Arbitrary<unknown[]>;
  const choices: fc.Arbitrary<Broken<unknown[]>>[] = [];
  const broken = brokenItem(items);
  if (broken) {
    choices.push(
      fc.tuple(valid, broken, fc.nat()).map(([value, { rule, value: item }, at]) => {
        const changed = [...value];
        changed.splice(at % (value.length + 1), 0, item);
        return { rule: `an item: ${rule}`, value: changed };
      }),
    );
  }
  const minItems = (schema.minItems as number | undefined) ?? 0;
  const maxItems = schema.maxItems as number | undefined;
  if (minItems > 0) choices.push(fc.constant({ rule: 'fewer than minItems', value: [] }));
  if (maxItems !== undefined) {
    choices.push(
      fc
        .array(validValue(items), { minLength: maxItems + 1, maxLength: maxItems + 3 })
        .map((value) => ({ rule: 'more than maxItems', value })),
    );
  }
  if (schema.uniqueItems === true) {
    choices.push(
      fc
        .tuple(valid.filter((value) => value.length > 0), fc.nat())
        .map(([value, at]) => ({ rule: 'a repeated item', value: [...value, value[at % value.length]] })),
    );
  }
  return choices;
}

/**
 * Values of an array query parameter (`style: form, explode: true`, one field per item) that break one of
 * its rules; there an empty array is no parameter at all, so fewer than minItems cannot be sent.
 */
export function brokenTextArray(schema: Json): fc.Arbitrary<Broken<string[]>> {
  checkUnderstood(schema);
  return fc
    .oneof(...brokenArrays(schema, brokenText))
    .filter(({ value }) => value.length > 0)
    .map(({ rule, value }) => ({ rule, value: value.map(String) }));
}

const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function brokenObject(schema: Json): fc.Arbitrary<Broken>[] {
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const required = (schema.required as string[] | undefined) ?? [];
  const valid = validValue(schema) as fc.Arbitrary<Record<string, unknown>>;
  const choices: fc.Arbitrary<Broken>[] = [];
  for (const name of required) {
    choices.push(
      valid.map((value) => {
        const rest = { ...value };
        delete rest[name];
        return { rule: `missing required ${name}`, value: rest };
      }),
    );
  }
  if (((schema.minProperties as number | undefined) ?? 0) > 0 && required.length === 0) {
    choices.push(fc.constant({ rule: 'no field at all', value: {} }));
  }
  if (schema.additionalProperties === false) {
    const extraName = fc
      .string({ unit: 'grapheme', minLength: 0, maxLength: 20 })
      .filter((name) => !(name in properties) && !PROTOTYPE_KEYS.has(name));
    choices.push(
      fc.tuple(valid, extraName, fc.jsonValue({ maxDepth: 2 })).map(([value, name, extra]) => ({
        rule: 'an extra field',
        value: { ...value, [name]: extra },
      })),
    );
  }
  for (const [name, property] of Object.entries(properties)) {
    choices.push(
      fc.tuple(valid, brokenValue(property)).map(([value, broken]) => ({
        rule: `${name}: ${broken.rule}`,
        value: { ...value, [name]: broken.value },
      })),
    );
  }
  return choices;
}
