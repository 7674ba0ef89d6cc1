// What list, get, update and delete ask of MongoDB, seen on the wire between the service and MongoDB:
// list is a keyset query on _id (a range on _id, sorted by _id, limit, never a skip); get and
// delete name one document by _id; an unconditional update is one write. (Whether the server then uses the _id index is for `explain`
// to say, which the mongod emulator these tests run on by default does not implement.)
// The proxy decodes with the bson package itself, so its values are of these classes.
import { Int32, Long, type Document } from 'bson';
import { ConnectionString } from 'mongodb-connection-string-url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PLANTS_COLLECTION } from '../../server/plants/mongo-plant-store.js';
import { postPlant, startTestApp, TEST_TOKEN, testMongoUri, type TestApp } from '../helpers/app.js';
import { startMongoWireProxy, type MongoWireProxy } from '../helpers/mongo-wire-proxy.js';

let proxy: MongoWireProxy;
let testApp: TestApp;
beforeAll(async () => {
  const uri = testMongoUri();
  proxy = await startMongoWireProxy(uri);
  testApp = await startTestApp({ env: { MONGODB_URI: proxy.uri(new ConnectionString(uri).pathname.slice(1)) } });
  for (const id of [1, 2, 3, 4]) expect((await postPlant(testApp.app, { id, name: `plant ${id}` })).statusCode).toBe(200);
});
afterAll(async () => {
  await testApp.close();
  await proxy.close();
});
// The proxy reads numbers as BSON gives them: Int32 for a limit or a sort direction.
beforeEach(() => {
  proxy.commands.length = 0;
});

const send = (method: 'GET' | 'DELETE' | 'PATCH', url: string, headers: Record<string, string> = {}, payload?: string) =>
  testApp.app.inject({ method, url, headers: { authorization: `Bearer ${TEST_TOKEN}`, ...headers }, payload });
const patch = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  send('PATCH', url, { 'content-type': 'application/merge-patch+json', ...headers }, JSON.stringify(body));
/** The commands the service sent on the plants collection under `name` (find, delete...). */
const commandsOf = (name: string): Document[] => proxy.commands.filter((command) => command[name] === PLANTS_COLLECTION);

describe('list', () => {
  it('asks for the first page by _id order, one more plant than the page, and no skip', async () => {
    expect((await send('GET', '/plants?limit=2')).statusCode).toBe(200);
    const [find, ...others] = commandsOf('find');
    expect(others).toHaveLength(0);
    expect(find).toMatchObject({ filter: {}, sort: { _id: new Int32(1) }, limit: new Int32(3) });
    expect(find).not.toHaveProperty('skip');
  });

  it('asks for a later page by a range on _id after the last id, never by skipping', async () => {
    const response = await send('GET', '/plants?limit=2&after=2');
    expect(response.json()).toEqual([
      { id: 3, name: 'plant 3' },
      { id: 4, name: 'plant 4' },
    ]);
    const [find, ...others] = commandsOf('find');
    expect(others).toHaveLength(0);
    expect(find).toMatchObject({ sort: { _id: new Int32(1) }, limit: new Int32(3) });
    expect(find).not.toHaveProperty('skip');
    // Beside the range, only what keeps a deleted plant's tombstone out of the list.
    expect(Object.keys(find?.filter as Document).sort()).toEqual(['_id', 'tombstone']);
    expect((find?.filter as { _id: { $gt: unknown } })._id).toStrictEqual({ $gt: Long.fromNumber(2) });
    expect((find?.filter as { tombstone: unknown }).tombstone).toStrictEqual({ $exists: false });
  });
});

describe('get and delete', () => {
  it('get reads one document by _id', async () => {
    expect((await send('GET', '/plants/3')).statusCode).toBe(200);
    const [find, ...others] = commandsOf('find');
    expect(others).toHaveLength(0);
    expect(find).toMatchObject({ filter: { _id: Long.fromNumber(3) }, limit: new Int32(1) });
  });

  it('delete removes at most one document, named by _id', async () => {
    expect((await send('DELETE', '/plants/4')).statusCode).toBe(204);
    const [command, ...others] = commandsOf('delete');
    expect(others).toHaveLength(0);
    expect(command?.deletes).toStrictEqual([{ q: { tombstone: { $exists: false }, _id: Long.fromNumber(4) }, limit: new Int32(1) }]);
  });
});

describe('update', () => {
  it('an unconditional change is one round trip: a findAndModify that passes over a patch changing nothing', async () => {
    const changed = await patch('/plants/1', { name: 'renamed' });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toEqual({ id: 1, name: 'renamed' });
    expect(commandsOf('find')).toHaveLength(0);
    const [write, ...others] = commandsOf('findAndModify');
    expect(others).toHaveLength(0);
    expect(write).toMatchObject({ query: { _id: Long.fromNumber(1), $or: [{ name: { $ne: 'renamed' } }] }, new: false });

    // The same patch again changes nothing: the write matches nothing, and a read tells the plant is there as asked.
    proxy.commands.length = 0;
    const unchanged = await patch('/plants/1', { name: 'renamed' });
    expect(unchanged.statusCode).toBe(200);
    expect(unchanged.headers.etag).toBe(changed.headers.etag);
    expect(commandsOf('findAndModify')).toHaveLength(1);
    expect(commandsOf('find')).toHaveLength(1);
    expect(commandsOf('update')).toHaveLength(0);
  });

  it('a change under If-Match reads the plant, then writes only while it is as read', async () => {
    const etag = (await send('GET', '/plants/2')).headers.etag ?? '';
    proxy.commands.length = 0;
    expect((await patch('/plants/2', { tag: 'shade' }, { 'if-match': etag })).statusCode).toBe(200);
    expect(commandsOf('findAndModify')).toHaveLength(0);
    expect(commandsOf('find')).toHaveLength(1);
    const [update] = commandsOf('update');
    expect(update?.updates).toMatchObject([{ q: { _id: Long.fromNumber(2), name: 'plant 2', revision: { $exists: false } } }]);
  });
});
