import { TRPCClientError } from '@trpc/client';
import { Long } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { createPlantStoreClient } from '../../client/create-client.js';
import type { AppRouter } from '../../routers/app.js';
import { TEST_TOKEN, useListeningTestApp } from '../helpers/app.js';

const service = useListeningTestApp();

/** The rejection of a tRPC call, typed, so its code and status can be checked. */
async function failureOf(call: Promise<unknown>): Promise<TRPCClientError<AppRouter>> {
  const error: unknown = await call.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof TRPCClientError)) throw new Error(`expected a TRPCClientError, got ${String(error)}`);
  return error as TRPCClientError<AppRouter>;
}

describe('createPlant through @trpc/client against a listening server', () => {
  it('creates a plant and answers the Plant', async () => {
    const client = createPlantStoreClient({ url: service.url, token: TEST_TOKEN });
    await expect(client.createPlant.mutate({ id: 1, name: 'Monstera', tag: 'tropical' })).resolves.toStrictEqual({
      name: 'Monstera',
      tag: 'tropical',
    });
    expect(await service.testApp.plants.findOne({ _id: Long.fromNumber(1) })).toMatchObject({ name: 'Monstera', tag: 'tropical' });
  });

  it('is safe to retry and answers the stored plant', async () => {
    const client = createPlantStoreClient({ url: `${service.url}/`, token: TEST_TOKEN });
    await client.createPlant.mutate({ id: 2, name: 'Fern' });
    await expect(client.createPlant.mutate({ id: 2, name: 'Fern' })).resolves.toStrictEqual({ name: 'Fern' });
  });

  it('BAD_REQUEST (400) for invalid input, naming the field', async () => {
    const client = createPlantStoreClient({ url: service.url, token: TEST_TOKEN });
    // @ts-expect-error: the point is to send what the types forbid
    const error = await failureOf(client.createPlant.mutate({ id: '3', name: 'x' }));
    expect(error.data?.code).toBe('BAD_REQUEST');
    expect(error.data?.httpStatus).toBe(400);
    expect(error.message).toBe('id must be an integer');
  });

  it('UNAUTHORIZED (401) for a wrong token', async () => {
    const client = createPlantStoreClient({ url: service.url, token: 'wrong' });
    const error = await failureOf(client.createPlant.mutate({ id: 4, name: 'x' }));
    expect(error.data?.code).toBe('UNAUTHORIZED');
    expect(error.data?.httpStatus).toBe(401);
    expect(error.message).toBe('invalid bearer token: it is not a token this service accepts');
  });

  it('UNAUTHORIZED (401) for a wrong token even when the input is over the body limit: the token is judged first', async () => {
    const client = createPlantStoreClient({ url: service.url, token: 'wrong' });
    const error = await failureOf(client.createPlant.mutate({ id: 4, name: 'x'.repeat(20_000) }));
    expect(error.data?.code).toBe('UNAUTHORIZED');
    expect(error.data?.httpStatus).toBe(401);
    const admitted = createPlantStoreClient({ url: service.url, token: TEST_TOKEN });
    expect((await failureOf(admitted.createPlant.mutate({ id: 4, name: 'x'.repeat(20_000) }))).data?.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('CONFLICT (409) for an id taken by another plant', async () => {
    const client = createPlantStoreClient({ url: service.url, token: TEST_TOKEN });
    await client.createPlant.mutate({ id: 5, name: 'Basil' });
    const error = await failureOf(client.createPlant.mutate({ id: 5, name: 'Mint' }));
    expect(error.data?.code).toBe('CONFLICT');
    expect(error.data?.httpStatus).toBe(409);
  });

  it('sends no stack trace in any error', async () => {
    const response = await fetch(`${service.url}/trpc/createPlant`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' },
      body: '{"id": "x"}',
    });
    const text = await response.text();
    expect(response.status).toBe(400);
    expect(text).not.toMatch(/stack|\bat .+:\d+:\d+/);
  });

  it('answers 401 over /trpc with WWW-Authenticate too', async () => {
    const response = await fetch(`${service.url}/trpc/createPlant`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"id":6,"name":"x"}',
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
  });
});
