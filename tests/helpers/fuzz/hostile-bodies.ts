// fast-check arbitraries for what a hostile or broken client sends to POST /plants and /trpc/createPlant.
import fc from 'fast-check';

export const TOKEN = 'fuzz-token-Vb7Nq3';

/** A request as the fuzz tests send it: raw bytes, and headers that may be missing or wrong. */
export interface FuzzRequest {
  path: '/plants' | '/trpc/createPlant';
  body: Buffer;
  contentType: string | undefined;
  authorization: string | undefined;
}

const LIMITS = [
  '9007199254740991',
  '-9007199254740991',
  '9007199254740992',
  '-9007199254740992',
  '9007199254740993',
  '9223372036854775807',
  '-9223372036854775808',
  '9223372036854775808',
  '18446744073709551616',
  '1e308',
  '-1e308',
  '1e309',
  '-0',
  '0',
  '1e-7',
  '0.5',
  '1.0',
  '1e2',
  '2147483647',
  '2147483648',
  '-2147483649',
  '4294967296',
  '-9223372036854775809',
  '9223372036854775807.0',
  '9.223372036854775807e18',
  '9.2233720368547758075e18',
  '92233720368547758070e-1',
  '9007199254740993.5',
  '1e19',
  '-1e19',
  '0.9223372036854775807e19',
  '00',
  '-',
  '1e',
  '9007199254740993e-0',
  '123456789012345678901234567890',
  // Not integers, though a double rounds them to one; and integers a double cannot hold.
  '4.9999999999999999',
  '-4.9999999999999999',
  '1e-400',
  '9007199254740991.4',
  '77.00000000000000001',
  '1.5e1',
  '1e400',
  '-1.5e400',
];

/** Big integers, written as JSON numbers: inside int64 and just outside it. */
const INT64_EDGE = 2n ** 63n;
const bigIdText = fc
  .oneof(
    fc.bigInt({ min: -INT64_EDGE, max: INT64_EDGE - 1n }),
    fc.bigInt({ min: -INT64_EDGE - 1000n, max: INT64_EDGE + 1000n }),
    fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
  )
  .map(String);

/** JSON texts of values no plant field should take, or should take only exactly. */
const hostileValueText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...LIMITS),
  bigIdText,
  fc.constantFrom(
    '{"$gt": ""}',
    '{"$ne": null}',
    '{"$where": "sleep(1000)"}',
    '{"$regex": ".*"}',
    '"$gt"',
    '{"__proto__": {"polluted": 1}}',
    '{"constructor": {"prototype": {"polluted": 1}}}',
    '{"prototype": 1}',
    'null',
    'true',
    '[]',
    '{}',
    '""',
    '" "',
    '"\\ud800"',
    '"\\udfff"',
    '"a\\ud83dz"',
    '"\\u0000"',
    '"\\u202e"',
    '"😀"',
    '"e\\u0301"',
    '"\\n\\r\\t"',
  ),
  fc.integer({ min: 1, max: 3000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
  // Past the nesting limit, with an integer beyond 2^53 inside (it once ended the process).
  fc
    .oneof(fc.integer({ min: 60, max: 200 }), fc.integer({ min: 7_500, max: 8_100 }))
    .map((depth) => '['.repeat(depth) + '9223372036854775807' + ']'.repeat(depth)),
  fc.integer({ min: 1, max: 1500 }).map((depth) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)),
  fc.integer({ min: 150, max: 20_000 }).map((length) => JSON.stringify('x'.repeat(length))),
  fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
  fc.string({ unit: 'binary', maxLength: 60 }).map((value) => JSON.stringify(value)),
);

const validId = fc.oneof(
  fc.integer({ min: -1e15, max: 1e15 }).map(String),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 0).map(String),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String),
);
const validName = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 });
const validTag = fc.option(fc.string({ unit: 'grapheme', maxLength: 40 }), { nil: undefined });

/** Field name to JSON text of its value. Texts, not values, so numbers keep the digits we chose. */
type Fields = [string, string][];

const validFields: fc.Arbitrary<Fields> = fc
  .tuple(validId, validName, validTag)
  .map(([id, name, tag]) => [
    ['id', id],
    ['name', JSON.stringify(name)],
    ...(tag === undefined ? [] : [['tag', JSON.stringify(tag)] as [string, string]]),
  ]);

const hostileKey = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    '$set',
    '$where',
    'id',
    'name',
    'tag',
    '_id',
    'createdAt',
    'toString',
    'tga',
    '',
  ),
  fc.string({ maxLength: 12 }),
);

type Mutation = (fields: Fields) => Fields;
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc
    .tuple(fc.constantFrom('id', 'name', 'tag'), hostileValueText)
    .map(([key, value]): Mutation => (fields) => [...fields.filter(([k]) => k !== key), [key, value]]),
  fc.tuple(hostileKey, hostileValueText).map(([key, value]): Mutation => (fields) => [...fields, [key, value]]),
  fc.constantFrom('id', 'name', 'tag').map(
    (key): Mutation =>
      (fields) =>
        fields.filter(([k]) => k !== key),
  ),
  // Duplicate keys: the second value is the one JSON.parse keeps.
  fc.tuple(fc.constantFrom('id', 'name'), hostileValueText).map(([key, value]): Mutation => (fields) => [[key, value], ...fields]),
  fc.constant<Mutation>((fields) => fields),
);

const objectText = fc
  .tuple(validFields, fc.array(mutation, { maxLength: 3 }), fc.constantFrom('', ' ', '\n\t'))
  .map(([fields, mutations, space]) => {
    const mutated = mutations.reduce((current, mutate) => mutate(current), fields);
    return `{${space}${mutated.map(([key, value]) => `${JSON.stringify(key)}:${space}${value}`).join(',')}}`;
  });

const rawBody: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 6, arbitrary: objectText.map((text) => Buffer.from(text)) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        '',
        ' ',
        '\n\r\t ',
        '{',
        '}',
        '{"id":1,"name":"a"',
        'null',
        '[]',
        '"text"',
        '42',
        '{"id":1,"name":"a"}x',
        '\ufeff{"id":1,"name":"a"}',
      )
      .map((text) => Buffer.from(text)),
  },
  { weight: 1, arbitrary: hostileValueText.map((text) => Buffer.from(text)) },
  // Invalid UTF-8 inside and outside strings.
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        objectText,
        fc.uint8Array({ minLength: 1, maxLength: 4 }).map((bytes) => bytes.map((byte) => 0x80 | (byte & 0x7f))),
        fc.nat(),
      )
      .map(([text, bytes, at]) => {
        const nameAt = text.indexOf('"name":"');
        const cut = nameAt >= 0 ? nameAt + 8 : at % (text.length + 1);
        return Buffer.concat([Buffer.from(text.slice(0, cut)), Buffer.from(bytes), Buffer.from(text.slice(cut))]);
      }),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)) },
);

const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/json;charset=latin1',
      'text/plain',
      'text/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonx',
      'application/',
      '',
      '*/*',
      'application/json, text/plain',
      'application/vnd.api+json',
    ),
  },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

/** Header values a client library will send: visible ASCII and spaces, no line breaks. */
const headerText = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 80 });

const authorization = fc.oneof(
  { weight: 6, arbitrary: fc.constant(`Bearer ${TOKEN}`) },
  {
    weight: 3,
    arbitrary: fc.oneof(
      fc.constantFrom(
        'Bearer',
        'Bearer ',
        'Bearer  ',
        `bearer ${TOKEN}`,
        `BEARER  ${TOKEN}  `,
        `Bearer ${TOKEN} ${TOKEN}`,
        `Bearer ${TOKEN}x`,
        `Basic ${TOKEN}`,
        `Bearer ${TOKEN.slice(1)}`,
        TOKEN,
        'Bearer null',
        'Bearer undefined',
        'Bearer {"$ne":null}',
        `Bearer ${'a'.repeat(8000)}`,
      ),
      headerText,
      headerText.map((text) => `Bearer ${text}`),
    ),
  },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

export const fuzzRequest = (paths: readonly FuzzRequest['path'][]): fc.Arbitrary<FuzzRequest> =>
  fc.record({ path: fc.constantFrom(...paths), body: rawBody, contentType, authorization });
