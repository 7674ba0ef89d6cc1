// PATCH /plants/{id} (a JSON merge patch) with ETags and conditional requests, over real HTTP, over
// /trpc with the real client, and in process; If-None-Match on GET; If-Match on DELETE.
import { TRPCClientError } from '@trpc/client';
import { Long } from 'mongodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { createPlantStoreClient } from '../../client/index.js';
import { createAppCaller } from '../../server/app.js';
import { TEST_TOKEN, useListeningTestApp } from '../helpers/app.js';

const service = useListeningTestApp();
const auth = { authorization: `Bearer ${TEST_TOKEN}` };
const MERGE_PATCH = { ...auth, 'content-type': 'application/merge-patch+json' };

beforeEach(async () => {
  await service.testApp.plants.deleteMany({});
});

const send = (method: string, path: string, headers: Record<string, string> = auth, body?: string) =>
  fetch(new URL(path, service.url), { method, headers, ...(body !== undefined && { body }) });
const patch = (path: string, body: unknown, headers: Record<string, string> = MERGE_PATCH) =>
  send('PATCH', path, headers, typeof body === 'string' ? body : JSON.stringify(body));

async function create(plant: { id: number | bigint; name: string; tag?: string }): Promise<Response> {
  const body = JSON.stringify(plant, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)).replace(
    /"id":"(-?\d+)"/,
    '"id":$1',
  );
  const response = await send('POST', '/plants', { ...auth, 'content-type': 'application/json' }, body);
  expect(response.status, await response.clone().text()).toBe(200);
  return response;
}

async function expectError(response: Response, status: number, message: string | RegExp) {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  const body = JSON.parse(text) as { error: number; message: string };
  expect(Object.keys(body).sort()).toEqual(['error', 'message']);
  expect(body.error).toBe(status);
  expect(body.message).toMatch(message);
}

describe('PATCH /plants/{id}', () => {
  it('changes the name, removes the tag with null, and answers the whole plant as GET does', async () => {
    await create({ id: 9007199254740993n, name: 'Monstera', tag: 'tropical' });
    const renamed = await patch('/plants/9007199254740993', { name: 'Swiss cheese plant' });
    expect(renamed.status).toBe(200);
    expect(await renamed.text()).toBe('{"id":9007199254740993,"name":"Swiss cheese plant","tag":"tropical"}');
    const untagged = await patch('/plants/9007199254740993', { tag: null }, { ...auth, 'content-type': 'application/json' });
    expect(await untagged.text()).toBe('{"id":9007199254740993,"name":"Swiss cheese plant"}');
    const read = await send('GET', '/plants/9007199254740993');
    expect(await read.text()).toBe('{"id":9007199254740993,"name":"Swiss cheese plant"}');
    const stored = await service.testApp.plants.findOne({ _id: Long.fromString('9007199254740993') });
    expect(stored).toMatchObject({ name: 'Swiss cheese plant', revision: 2 });
    expect(stored).not.toHaveProperty('tag');
    // A tag given to a plant without one is a change too.
    const tagged = await patch('/plants/9007199254740993', { tag: 'climber' });
    expect(await tagged.text()).toBe('{"id":9007199254740993,"name":"Swiss cheese plant","tag":"climber"}');
    expect(await (await send('GET', '/plants/9007199254740993')).text()).toBe(await (await patch('/plants/9007199254740993', {})).text());
  });

  it('answers ETag on create, GET and PATCH; it changes when and only when the plant changes', async () => {
    const created = await create({ id: 1, name: 'Fern' });
    const first = created.headers.get('etag');
    expect(first).toMatch(/^"[\w-]+"$/);
    // A replayed create answers the unchanged plant and its unchanged tag.
    expect((await create({ id: 1, name: 'Fern' })).headers.get('etag')).toBe(first);
    expect((await send('GET', '/plants/1')).headers.get('etag')).toBe(first);
    const nothing = await patch('/plants/1', {});
    expect(nothing.status).toBe(200);
    expect(nothing.headers.get('etag')).toBe(first);
    const same = await patch('/plants/1', { name: 'Fern' });
    expect(same.headers.get('etag')).toBe(first);
    expect((await service.testApp.plants.findOne({ _id: Long.fromNumber(1) }))?.revision).toBeUndefined();
    const changed = await patch('/plants/1', { name: 'Bracken' });
    const second = changed.headers.get('etag');
    expect(second).not.toBe(first);
    // Back to the first name: a change all the same, so a tag of its own.
    const back = await patch('/plants/1', { name: 'Fern' });
    expect(back.headers.get('etag')).not.toBe(first);
    expect(back.headers.get('etag')).not.toBe(second);
    expect((await send('GET', '/plants/1')).headers.get('etag')).toBe(back.headers.get('etag'));
  });

  it('gives a tag of its own to each plant whose name and tag would read alike run together', async () => {
    const tags = new Set<string | null>();
    for (const plant of [
      { name: 'Fern:fine' },
      { name: 'Fern', tag: 'fine' },
      { name: 'Fern:', tag: 'fine' },
      { name: 'Fern', tag: ':fine' },
    ]) {
      tags.add((await create({ id: 7, ...plant })).headers.get('etag'));
      expect((await send('DELETE', '/plants/7')).status).toBe(204);
    }
    expect(tags.size).toBe(4);
  });

  it('reads plants stored without a revision, and changes them', async () => {
    await service.testApp.plants.insertOne({ _id: Long.fromNumber(5), name: 'Old', createdAt: new Date() });
    const read = await send('GET', '/plants/5');
    const etag = read.headers.get('etag') ?? '';
    const changed = await patch('/plants/5', { tag: 'kept' }, { ...MERGE_PATCH, 'if-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    await expectError(
      await patch('/plants/5', { tag: 'again' }, { ...MERGE_PATCH, 'if-match': etag }),
      412,
      'the plant with id 5 has changed',
    );
  });

  it.each([
    [{ name: '' }, 'name must not be empty'],
    [{ name: null }, 'name must be a string, not null: a plant always has a name'],
    [{ name: 42 }, 'name must be a string'],
    [{ tag: 7 }, 'tag must be a string, or null to remove the tag'],
    [{ tag: 'x'.repeat(101) }, 'tag must be at most 100 characters'],
    [{ id: 2, name: 'Fern' }, 'the body must not hold "id": the path gives it, and it never changes'],
    [{ id: 1 }, 'the body must not hold "id"'],
    [{ nmae: 'Fern' }, 'unknown field "nmae": a change has only name and tag'],
    [{ ifMatch: '*' }, 'unknown field "ifMatch": send the condition as the If-Match header'],
    [[{ name: 'Fern' }], 'the request body must be a JSON object'],
    ['"Fern"', 'the request body must be a JSON object'],
    ['{"name": ', 'the request body is not valid JSON'],
  ])('refuses %j with 400, changing nothing', async (body, message) => {
    await create({ id: 1, name: 'Fern' });
    await expectError(await patch('/plants/1', body), 400, message);
    expect((await send('GET', '/plants/1')).headers.get('etag')).toBe((await create({ id: 1, name: 'Fern' })).headers.get('etag'));
    expect(await (await send('GET', '/plants/1')).json()).toEqual({ id: 1, name: 'Fern' });
  });

  it('answers 415 for other media types, and a merge patch is refused where it is not declared', async () => {
    await create({ id: 1, name: 'Fern' });
    // `merge-patch` and `application/` are no media type at all: Fastify refuses them before any parser reads them.
    for (const contentType of ['text/plain', 'application/json-patch+json', 'merge-patch', 'application/']) {
      const refused = await patch('/plants/1', '{"name":"x"}', { ...auth, 'content-type': contentType });
      // RFC 5789 section 2.2: what a PATCH takes, in Accept-Patch.
      expect(refused.headers.get('accept-patch')).toBe('application/merge-patch+json, application/json');
      await expectError(
        refused,
        415,
        /^the body must be a JSON merge patch \(RFC 7396\): send it with Content-Type: application\/merge-patch\+json or application\/json$/,
      );
    }
    await expectError(
      await send('POST', '/plants', MERGE_PATCH, '{"id":3,"name":"x"}'),
      415,
      'send it with Content-Type: application/json',
    );
    expect(await service.testApp.plants.countDocuments({})).toBe(1);
  });

  it('refuses a query parameter, which a body-taking operation would otherwise drop: no condition hides in one', async () => {
    await create({ id: 1, name: 'Fern' });
    await expectError(
      await patch('/plants/1?ifMatch=%22x%22', { name: 'x' }),
      400,
      'unknown parameter "ifMatch": this operation takes no query',
    );
    await expectError(
      await send('POST', '/plants?id=5', { ...auth, 'content-type': 'application/json' }, '{"id":3,"name":"x"}'),
      400,
      'unknown parameter "id"',
    );
    expect(await (await send('GET', '/plants/1')).json()).toEqual({ id: 1, name: 'Fern' });
    expect(await service.testApp.plants.countDocuments({})).toBe(1);
  });

  it('answers 404 for an absent plant, whatever If-Match says; 401 without a token; 400 for an id that is no int64', async () => {
    await expectError(await patch('/plants/404', { name: 'x' }), 404, 'no plant with id 404');
    await expectError(await patch('/plants/404', { name: 'x' }, { ...MERGE_PATCH, 'if-match': '"nope"' }), 404, 'no plant with id 404');
    await expectError(await patch('/plants/404', { name: 'x' }, { ...MERGE_PATCH, 'if-match': '*' }), 404, 'no plant with id 404');
    await expectError(
      await patch('/plants/1', { name: 'x' }, { 'content-type': 'application/merge-patch+json' }),
      401,
      'missing bearer token',
    );
    await expectError(await patch('/plants/fern', { name: 'x' }), 400, 'id must be an integer');
  });
});

describe('If-Match', () => {
  it('changes only while the tag matches (one of a list, or *); 412 changes nothing', async () => {
    const etag = (await create({ id: 1, name: 'Fern', tag: 'shade' })).headers.get('etag') ?? '';
    await expectError(
      await patch('/plants/1', { name: 'x' }, { ...MERGE_PATCH, 'if-match': '"other"' }),
      412,
      'the plant with id 1 has changed',
    );
    // The plant's own tag made weak, as a compressing proxy makes it: told apart, since reading again would not help.
    await expectError(
      await patch('/plants/1', { name: 'x' }, { ...MERGE_PATCH, 'if-match': `W/${etag}` }),
      412,
      'If-Match names the entity tag of the plant with id 1 only as weak (W/), and If-Match compares strongly: send the ETag as the plant was answered with, without W/',
    );
    await expectError(await patch('/plants/1', { name: 'x' }, { ...MERGE_PATCH, 'if-match': `W/"other", W/${etag}` }), 412, 'only as weak');
    await expectError(
      await patch('/plants/1', { name: 'x' }, { ...MERGE_PATCH, 'if-match': 'not-quoted' }),
      400,
      'If-Match must be * or a comma-separated list of entity tags',
    );
    // Only spaces and tabs separate: a no-break space is no whitespace of HTTP's.
    for (const spaced of [`\u00a0${etag}`, `${etag}\u00a0`, '\u00a0*']) {
      await expectError(
        await patch('/plants/1', { name: 'x' }, { ...MERGE_PATCH, 'if-match': spaced }),
        400,
        'If-Match must be * or a comma-separated list of entity tags',
      );
    }
    // A list of no tags (RFC 9110's #rule allows it) names nothing the plant can match: 412, not a bad request.
    for (const empty of ['', ' , ,']) {
      await expectError(
        await patch('/plants/1', { name: 'x' }, { ...MERGE_PATCH, 'if-match': empty }),
        412,
        'If-Match names no entity tag, so the plant with id 1 cannot match it: send the ETag the plant was answered with',
      );
    }
    expect(await (await send('GET', '/plants/1')).json()).toEqual({ id: 1, name: 'Fern', tag: 'shade' });
    // Empty list elements count for nothing (RFC 9110 section 5.6.1).
    const listed = await patch('/plants/1', { name: 'Lady fern' }, { ...MERGE_PATCH, 'if-match': `"a", , ${etag},` });
    expect(listed.status).toBe(200);
    expect((await patch('/plants/1', { tag: null }, { ...MERGE_PATCH, 'if-match': '*' })).status).toBe(200);
  });

  it('on DELETE: 412 keeps the plant; a matching tag deletes it; an absent plant stays 404', async () => {
    const etag = (await create({ id: 3, name: 'Fern' })).headers.get('etag') ?? '';
    await expectError(await send('DELETE', '/plants/3', { ...auth, 'if-match': '"stale"' }), 412, 'the plant with id 3 has changed');
    await expectError(await send('DELETE', '/plants/3', { ...auth, 'if-match': `W/${etag}` }), 412, 'only as weak (W/)');
    await expectError(await send('DELETE', '/plants/3', { ...auth, 'if-match': '' }), 412, 'If-Match names no entity tag');
    expect((await send('GET', '/plants/3')).status).toBe(200);
    expect((await send('DELETE', '/plants/3', { ...auth, 'if-match': etag })).status).toBe(204);
    await expectError(await send('DELETE', '/plants/3', { ...auth, 'if-match': etag }), 404, 'no plant with id 3');
  });
});

describe('the other conditions RFC 9110 names, on every operation that answers or changes one plant', () => {
  it('If-Match on GET: 412 with an Error body unless it names the tag (or is *); an absent plant stays 404; If-Match is judged before If-None-Match', async () => {
    const etag = (await create({ id: 5, name: 'Fern' })).headers.get('etag') ?? '';
    await expectError(await send('GET', '/plants/5', { ...auth, 'if-match': '"stale"' }), 412, 'the plant with id 5 has changed');
    await expectError(await send('GET', '/plants/5', { ...auth, 'if-match': `W/${etag}` }), 412, 'only as weak (W/)');
    await expectError(await send('GET', '/plants/5', { ...auth, 'if-match': 'unquoted' }), 400, 'If-Match must be');
    for (const condition of [etag, `"a", ${etag}`, '*']) {
      const answered = await send('GET', '/plants/5', { ...auth, 'if-match': condition });
      expect(answered.status).toBe(200);
      expect(await answered.json()).toEqual({ id: 5, name: 'Fern' });
    }
    await expectError(await send('GET', '/plants/6', { ...auth, 'if-match': '"stale"' }), 404, 'no plant with id 6');
    await expectError(await send('GET', '/plants/5', { ...auth, 'if-match': '"stale"', 'if-none-match': etag }), 412, 'has changed');
    expect((await send('GET', '/plants/5', { ...auth, 'if-match': etag, 'if-none-match': etag })).status).toBe(304);
  });

  it('If-None-Match on PATCH and DELETE: 412 and nothing done while it names the tag (weakly) or is *; done otherwise; absent stays 404', async () => {
    const etag = (await create({ id: 7, name: 'Fern' })).headers.get('etag') ?? '';
    const refused = 'the plant with id 7 exists with an entity tag If-None-Match names (* names any): the request was not carried out';
    for (const condition of ['*', etag, `W/${etag}`, `"a", ${etag}`]) {
      await expectError(await patch('/plants/7', { name: 'x' }, { ...MERGE_PATCH, 'if-none-match': condition }), 412, refused);
      await expectError(await send('DELETE', '/plants/7', { ...auth, 'if-none-match': condition }), 412, refused);
    }
    await expectError(await patch('/plants/7', { name: 'x' }, { ...MERGE_PATCH, 'if-none-match': 'bare' }), 400, 'If-None-Match must be');
    expect(await (await send('GET', '/plants/7')).json()).toEqual({ id: 7, name: 'Fern' });
    // A list of no tags names nothing the plant could match, so the change goes ahead.
    expect((await patch('/plants/7', { name: 'Fern' }, { ...MERGE_PATCH, 'if-none-match': '' })).status).toBe(200);
    const changed = await patch('/plants/7', { name: 'Lady fern' }, { ...MERGE_PATCH, 'if-none-match': '"another"' });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toEqual({ id: 7, name: 'Lady fern' });
    // Both: If-Match must hold and If-None-Match must not name the tag.
    const now = changed.headers.get('etag') ?? '';
    await expectError(await send('DELETE', '/plants/7', { ...auth, 'if-match': now, 'if-none-match': now }), 412, refused);
    expect((await send('DELETE', '/plants/7', { ...auth, 'if-match': now, 'if-none-match': etag })).status).toBe(204);
    await expectError(await patch('/plants/7', { name: 'x' }, { ...MERGE_PATCH, 'if-none-match': '*' }), 404, 'no plant with id 7');
    await expectError(await send('DELETE', '/plants/7', { ...auth, 'if-none-match': '*' }), 404, 'no plant with id 7');
  });
});

describe('If-None-Match on GET /plants/{id}', () => {
  it('answers 304 with the ETag and no body when it matches, 200 when it does not', async () => {
    const etag = (await create({ id: 1, name: 'Fern' })).headers.get('etag') ?? '';
    const notModified = await send('GET', '/plants/1', { ...auth, 'if-none-match': `"x", W/${etag}` });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe(etag);
    expect(notModified.headers.get('content-type')).toBeNull();
    expect(await notModified.text()).toBe('');
    const modified = await send('GET', '/plants/1', { ...auth, 'if-none-match': '"x"' });
    expect(modified.status).toBe(200);
    expect(await modified.json()).toEqual({ id: 1, name: 'Fern' });
    // HEAD as GET: the same 304, its Content-Length (if any) that of the 200's body.
    for (const condition of [etag, '*']) {
      const head = await send('HEAD', '/plants/1', { ...auth, 'if-none-match': condition });
      expect(head.status).toBe(304);
      expect(head.headers.get('etag')).toBe(etag);
      expect([null, String(Buffer.byteLength('{"id":1,"name":"Fern"}'))]).toContain(head.headers.get('content-length'));
    }
  });

  it('never answers 304 without a valid token', async () => {
    const etag = (await create({ id: 1, name: 'Fern' })).headers.get('etag') ?? '';
    await expectError(await send('GET', '/plants/1', { 'if-none-match': etag }), 401, 'missing bearer token');
    await expectError(await send('GET', '/plants/1', { authorization: 'Bearer wrong', 'if-none-match': '*' }), 401, /token/);
  });
});

describe('GET /plants?tag=', () => {
  it('answers only the plants with exactly that tag, in ascending ids, paged with the filter kept in Link', async () => {
    for (const [id, tag] of [
      [5, 'a'],
      [1, 'a'],
      [2, 'b'],
      [3, 'A'],
      [4, 'a'],
      [9007199254740993n, 'a'],
      [6, undefined],
    ] as const) {
      await create({ id, name: `plant ${id}`, ...(tag !== undefined && { tag }) });
    }
    const first = await send('GET', '/plants?tag=a&limit=2');
    expect(await first.text()).toBe('[{"id":1,"name":"plant 1","tag":"a"},{"id":4,"name":"plant 4","tag":"a"}]');
    expect(first.headers.get('link')).toBe('</plants?tag=a&limit=2&after=4>; rel="next"');
    const second = await send('GET', '/plants?tag=a&limit=2&after=4');
    expect(await second.text()).toBe(
      '[{"id":5,"name":"plant 5","tag":"a"},{"id":9007199254740993,"name":"plant 9007199254740993","tag":"a"}]',
    );
    expect(second.headers.get('link')).toBeNull();
    expect(await (await send('GET', '/plants?tag=a&limit=2&after=9007199254740993')).json()).toEqual([]);
    expect(await (await send('GET', '/plants?tag=A')).json()).toEqual([{ id: 3, name: 'plant 3', tag: 'A' }]);
    expect(await (await send('GET', '/plants?tag=none')).json()).toEqual([]);
  });

  it('takes an empty tag as the tag it is: the plants tagged "", not those without a tag', async () => {
    await create({ id: 1, name: 'Untagged' });
    await create({ id: 2, name: 'Tagged empty', tag: '' });
    for (const query of ['tag=', 'tag'])
      expect(await (await send('GET', `/plants?${query}`)).json()).toEqual([{ id: 2, name: 'Tagged empty', tag: '' }]);
  });

  it('refuses a repeated tag and one longer than any tag can be', async () => {
    await expectError(await send('GET', '/plants?tag=a&tag=b'), 400, 'tag may be given once: plants are listed by one tag at a time');
    await expectError(await send('GET', `/plants?tag=${'x'.repeat(101)}`), 400, 'tag must be at most 100 characters');
  });

  it('refuses a tag with a lone surrogate over /trpc (JSON can write one; a URL cannot), not matching U+FFFD', async () => {
    await create({ id: 1, name: 'Replaced', tag: '\ufffd' });
    const listed = await send('GET', `/trpc/listPlants?input=${encodeURIComponent('{"tag":"\\ud800"}')}`);
    expect(listed.status).toBe(400);
    expect(((await listed.json()) as { error: { message: string } }).error.message).toBe(
      'tag must be valid Unicode text: no plant has a tag that is not',
    );
  });

  it('is served by the tag index made at start-up', async () => {
    await expect.poll(async () => (await service.testApp.plants.indexes()).map((index) => index.name)).toContain('tag_id');
    const index = (await service.testApp.plants.indexes()).find((candidate) => candidate.name === 'tag_id');
    expect(index?.key).toEqual({ tag: 1, _id: 1 });
  });
});

describe('over /trpc and in process', () => {
  it('a single call over /trpc answers the ETag of the plant, as REST does', async () => {
    const etag = (await create({ id: 1, name: 'Fern' })).headers.get('etag');
    const got = await send('GET', `/trpc/getPlant?input=${encodeURIComponent('{"id":1}')}`);
    expect(got.status).toBe(200);
    expect(got.headers.get('etag')).toBe(etag);
    const updated = await send(
      'POST',
      '/trpc/updatePlant',
      { ...auth, 'content-type': 'application/json' },
      `{"id":1,"name":"Bracken","ifMatch":${JSON.stringify(etag)}}`,
    );
    expect(updated.status).toBe(200);
    expect(updated.headers.get('etag')).toBe((await send('GET', '/plants/1')).headers.get('etag'));
    expect(updated.headers.get('etag')).not.toBe(etag);
  });

  it('over /trpc the If-Match and If-None-Match headers hold as over REST: PRECONDITION_FAILED', async () => {
    await create({ id: 2, name: 'Fern' });
    const refusals = [
      await send('GET', `/trpc/getPlant?input=${encodeURIComponent('{"id":2}')}`, { ...auth, 'if-match': '"stale"' }),
      await send('POST', '/trpc/updatePlant', { ...auth, 'content-type': 'application/json', 'if-none-match': '*' }, '{"id":2,"name":"x"}'),
      await send('POST', '/trpc/deletePlant', { ...auth, 'content-type': 'application/json', 'if-none-match': '*' }, '{"id":2}'),
    ];
    for (const refused of refusals) {
      expect(refused.status).toBe(412);
      expect(await refused.json()).toMatchObject({ error: { data: { code: 'PRECONDITION_FAILED', httpStatus: 412 } } });
    }
    expect(await (await send('GET', '/plants/2')).json()).toEqual({ id: 2, name: 'Fern' });
  });

  it('over /trpc an If-Match header and an ifMatch input must both hold: neither stands in for the other', async () => {
    const etag = (await create({ id: 2, name: 'Fern' })).headers.get('etag') ?? '';
    const json = { ...auth, 'content-type': 'application/json' };
    const updateWith = (header: string, input: string) =>
      send('POST', '/trpc/updatePlant', { ...json, 'if-match': header }, JSON.stringify({ id: 2, name: 'x', ifMatch: input }));
    for (const [header, input] of [
      ['"stale"', etag],
      [etag, '"stale"'],
    ] as const) {
      const calls = [
        ['/trpc/updatePlant', JSON.stringify({ id: 2, name: 'x', ifMatch: input })],
        ['/trpc/deletePlant', JSON.stringify({ id: 2, ifMatch: input })],
      ] as const;
      for (const [path, body] of calls) {
        const refused = await send('POST', path, { ...json, 'if-match': header }, body);
        expect(refused.status).toBe(412);
        // Each names a tag: told as a change, not as a condition that named none.
        expect(await refused.json()).toMatchObject({
          error: {
            message: 'the plant with id 2 has changed: its entity tag matches none of If-Match; read it again and retry',
            data: { code: 'PRECONDITION_FAILED', httpStatus: 412 },
          },
        });
      }
    }
    // Either one weak: refused, told as a weak tag, not as a change.
    for (const [header, input] of [
      [`W/${etag}`, etag],
      [etag, `W/${etag}`],
    ] as const) {
      const refused = await updateWith(header, input);
      expect(refused.status).toBe(412);
      expect(await refused.json()).toMatchObject({ error: { message: expect.stringContaining('only as weak (W/)') as string } });
    }
    expect(await (await send('GET', '/plants/2')).json()).toEqual({ id: 2, name: 'Fern' });
    expect((await updateWith(etag, etag)).status).toBe(200);
  });

  it('updatePlant changes a plant, honours ifMatch with PRECONDITION_FAILED, and listPlants filters by tag', async () => {
    const client = createPlantStoreClient({ url: service.url, token: TEST_TOKEN });
    const etag = (await create({ id: 1, name: 'Fern', tag: 'shade' })).headers.get('etag') ?? '';
    const failed = await client.updatePlant.mutate({ id: 1, name: 'x', ifMatch: '"old"' }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(TRPCClientError);
    expect((failed as TRPCClientError<never>).data).toMatchObject({ code: 'PRECONDITION_FAILED', httpStatus: 412 });
    expect(await client.updatePlant.mutate({ id: 1, name: 'Lady fern', ifMatch: etag })).toEqual({
      id: 1n,
      name: 'Lady fern',
      tag: 'shade',
    });
    expect(await client.updatePlant.mutate({ id: 1, tag: null })).toEqual({ id: 1n, name: 'Lady fern' });
    const missing = await client.updatePlant.mutate({ id: 2, name: 'x' }).catch((error: unknown) => error);
    expect((missing as TRPCClientError<never>).data).toMatchObject({ code: 'NOT_FOUND' });
    const bad = await client.updatePlant.mutate({ id: 1, name: '' }).catch((error: unknown) => error);
    expect((bad as TRPCClientError<never>).data).toMatchObject({ code: 'BAD_REQUEST' });

    const caller = createAppCaller(service.testApp.app, `Bearer ${TEST_TOKEN}`);
    await create({ id: 2, name: 'Ivy', tag: 'shade' });
    expect(await caller.updatePlant({ id: 2, tag: 'climber' })).toEqual({ id: 2, name: 'Ivy', tag: 'climber' });
    await expect(caller.updatePlant({ id: 2, name: 'x', ifMatch: '"old"' })).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' });
    expect(await caller.listPlants({ tag: 'climber' })).toEqual([{ id: 2, name: 'Ivy', tag: 'climber' }]);
    expect(await client.listPlants.query({ tag: 'climber' })).toEqual([{ id: 2n, name: 'Ivy', tag: 'climber' }]);
    const readOnly = createAppCaller(service.testApp.app, undefined);
    await expect(readOnly.updatePlant({ id: 2, name: 'x' })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('deletePlant honours ifMatch as updatePlant does; over REST the condition is the header, never a query parameter', async () => {
    const client = createPlantStoreClient({ url: service.url, token: TEST_TOKEN });
    const etag = (await create({ id: 1, name: 'Fern' })).headers.get('etag') ?? '';
    const failed = await client.deletePlant.mutate({ id: 1, ifMatch: '"old"' }).catch((error: unknown) => error);
    expect((failed as TRPCClientError<never>).data).toMatchObject({ code: 'PRECONDITION_FAILED', httpStatus: 412 });
    await expectError(
      await send('DELETE', `/plants/1?ifMatch=${encodeURIComponent(etag)}`),
      400,
      'send the condition as the If-Match header',
    );
    expect((await send('GET', '/plants/1')).status).toBe(200);
    await client.deletePlant.mutate({ id: 1, ifMatch: etag });
    expect((await send('GET', '/plants/1')).status).toBe(404);

    const caller = createAppCaller(service.testApp.app, `Bearer ${TEST_TOKEN}`);
    await create({ id: 2, name: 'Ivy' });
    await expect(caller.deletePlant({ id: 2, ifMatch: '"old"' })).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' });
    await caller.deletePlant({ id: 2, ifMatch: '*' });
    await expect(caller.getPlant({ id: 2 })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
