import { Long } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postPlant, startTestApp, type TestApp } from '../helpers/app.js';

let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(async () => {
  await testApp.close();
});

const storedPlant = (id: number) => testApp.plants.findOne({ _id: Long.fromNumber(id) }, { promoteLongs: false });

describe('POST /plants with a valid NewPlant', () => {
  it('answers 200 with exactly the Plant shape, tag included when given', async () => {
    const response = await postPlant(testApp.app, { id: 1, name: 'Monstera', tag: 'tropical' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toStrictEqual({ name: 'Monstera', tag: 'tropical' });
  });

  it('leaves tag out of the answer when it was not given', async () => {
    const response = await postPlant(testApp.app, { id: 2, name: 'Fern' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toStrictEqual({ name: 'Fern' });
  });

  it('stores one document per plant: _id the id as Int64, name, tag, createdAt', async () => {
    const before = new Date();
    await postPlant(testApp.app, { id: 3, name: 'Cactus', tag: 'succulent' });
    const document = await storedPlant(3);
    expect(document?._id).toBeInstanceOf(Long);
    expect(document?._id.toString()).toBe('3');
    expect(document).toMatchObject({ name: 'Cactus', tag: 'succulent' });
    expect(document?.createdAt).toBeInstanceOf(Date);
    expect(document?.createdAt.getTime()).toBeGreaterThanOrEqual(before.getTime() - 1000);
    expect(Object.keys(document ?? {}).sort()).toEqual(['_id', 'createdAt', 'name', 'tag']);
  });

  it('stores no tag field when none was given', async () => {
    await postPlant(testApp.app, { id: 4, name: 'Ivy' });
    const document = await storedPlant(4);
    expect(document).not.toBeNull();
    expect(document).not.toHaveProperty('tag');
  });

  it('keeps the largest and smallest supported ids exactly', async () => {
    for (const id of [Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 0]) {
      const response = await postPlant(testApp.app, { id, name: `edge ${id}` });
      expect(response.statusCode).toBe(200);
      const document = await storedPlant(id);
      expect(document?._id.toString()).toBe(String(id));
    }
  });

  it('keeps text exactly as sent, including non-ASCII and JSON escapes', async () => {
    const name = 'Ficus "lyrata" 🌿 — ñ\\n';
    const response = await postPlant(testApp.app, { id: 5, name, tag: '' });
    expect(response.json()).toStrictEqual({ name, tag: '' });
    expect(await storedPlant(5)).toMatchObject({ name, tag: '' });
  });
});

describe('POST /plants is safe to retry', () => {
  it('answers 200 with the stored plant again and stores nothing twice', async () => {
    const plant = { id: 10, name: 'Aloe', tag: 'succulent' };
    const first = await postPlant(testApp.app, plant);
    const again = await postPlant(testApp.app, plant);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toStrictEqual(first.json());
    expect(await testApp.plants.countDocuments({ _id: Long.fromNumber(10) })).toBe(1);
  });

  it('answers 409 with the Error body when the id exists with another name or tag', async () => {
    await postPlant(testApp.app, { id: 11, name: 'Basil', tag: 'herb' });
    for (const other of [{ name: 'Mint', tag: 'herb' }, { name: 'Basil' }, { name: 'Basil', tag: 'spice' }]) {
      const response = await postPlant(testApp.app, { id: 11, ...other });
      expect(response.statusCode).toBe(409);
      expect(response.json()).toStrictEqual({ error: 409, message: 'a plant with id 11 already exists with a different name or tag' });
    }
    expect(await storedPlant(11)).toMatchObject({ name: 'Basil', tag: 'herb' });
  });

  it('leaves exactly one document when the same plant is created concurrently', async () => {
    const responses = await Promise.all(Array.from({ length: 25 }, () => postPlant(testApp.app, { id: 12, name: 'Sage' })));
    expect(responses.map((response) => response.statusCode)).toEqual(Array(25).fill(200));
    expect(await testApp.plants.countDocuments({ _id: Long.fromNumber(12) })).toBe(1);
  });
});

describe('POST /plants takes types exactly as the interface says', () => {
  const invalid: [string, unknown, string][] = [
    ['id as a string', { id: '42', name: 'x' }, 'id must be an integer'],
    ['id as a boolean', { id: true, name: 'x' }, 'id must be an integer'],
    ['id with a fraction', { id: 1.5, name: 'x' }, 'id must be an integer'],
    ['id null', { id: null, name: 'x' }, 'id must be an integer'],
    ['id as an object', { id: { $gt: 0 }, name: 'x' }, 'id must be an integer'],
    ['id missing', { name: 'x' }, 'id is required'],
    ['name as a number', { id: 20, name: 42 }, 'name must be a string'],
    ['name null', { id: 20, name: null }, 'name must be a string'],
    ['name as an operator', { id: 20, name: { $gt: '' } }, 'name must be a string'],
    ['name missing', { id: 20 }, 'name is required'],
    ['name empty', { id: 20, name: '' }, 'name must not be empty'],
    ['name too long', { id: 20, name: 'x'.repeat(201) }, 'name must be at most 200 characters'],
    ['tag as a number', { id: 20, name: 'x', tag: 5 }, 'tag must be a string'],
    ['tag null', { id: 20, name: 'x', tag: null }, 'tag must be a string'],
    ['tag too long', { id: 20, name: 'x', tag: 't'.repeat(101) }, 'tag must be at most 100 characters'],
    ['an unknown field', { id: 20, name: 'x', color: 'green' }, 'unknown field "color": a NewPlant has only id, name and tag'],
  ];

  it.each(invalid)('refuses %s with 400 and a message naming the field', async (_case, body, message) => {
    const response = await postPlant(testApp.app, body);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toStrictEqual({ error: 400, message });
    expect(await storedPlant(20)).toBeNull();
  });

  it('names every problem at once', async () => {
    const response = await postPlant(testApp.app, { id: 'x', name: 7 });
    expect(response.json()).toStrictEqual({ error: 400, message: 'id must be an integer; name must be a string' });
  });

  it.each([
    ['2^63', '9223372036854775808'],
    ['-2^63 - 1', '-9223372036854775809'],
    ['2^64', '18446744073709551616'],
    ['1e20', '1e20'],
  ])('refuses id %s, outside int64, stating the range', async (_case, id) => {
    const response = await postPlant(testApp.app, `{"id": ${id}, "name": "big"}`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toStrictEqual({
      error: 400,
      message: 'id must be an integer from -9223372036854775808 to 9223372036854775807',
    });
    expect(await testApp.plants.countDocuments({ name: 'big' })).toBe(0);
  });

  it('refuses text that is not valid Unicode (a lone surrogate cannot be stored as sent)', async () => {
    const response = await postPlant(testApp.app, '{"id": 21, "name": "bad \\ud800 text"}');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toStrictEqual({ error: 400, message: 'name must be valid Unicode text' });
  });
});
