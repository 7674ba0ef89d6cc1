// What every answer to a fuzz request must be: never 5xx; the Error shape (REST) or a tRPC error
// envelope when refused; and when 200, exactly the plant that was sent, stored exactly so.
import { Long, type Collection } from 'mongodb';
import { int64Json } from '../../../schemas/int64-json.js';
import type { PlantDocument } from '../../../server/plants/mongo-plant-store.js';
import type { FuzzRequest } from './hostile-bodies.js';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

interface SentPlant {
  id: number | bigint;
  name: string;
  tag?: string;
}

/** The plant a 200 must have stored: the body as strict JSON (UTF-8, last duplicate key wins, numbers exact: an integer id only). */
function sentPlant(body: Buffer): SentPlant {
  const value = int64Json.parse(strictUtf8.decode(body)) as Record<string, unknown>;
  const { id, name, tag } = value;
  if (
    !(typeof id === 'bigint' || (typeof id === 'number' && Number.isInteger(id))) ||
    typeof name !== 'string' ||
    (tag !== undefined && typeof tag !== 'string')
  ) {
    throw new Error(`200 for a body that is not a plant: ${body.toString('utf8').slice(0, 200)}`);
  }
  return { id, name, ...(tag !== undefined && { tag }) };
}

function fail(request: FuzzRequest, status: number, text: string, why: string): never {
  const shown = { ...request, body: request.body.toString('utf8').slice(0, 300), authorization: request.authorization?.slice(0, 80) };
  throw new Error(`${why}\n  request: ${JSON.stringify(shown)}\n  answer: ${status} ${text.slice(0, 300)}`);
}

function parse(request: FuzzRequest, status: number, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return fail(request, status, text, 'the answer is not JSON');
  }
}

export async function checkAnswer(request: FuzzRequest, status: number, text: string, plants: Collection<PlantDocument>): Promise<void> {
  if (status >= 500) fail(request, status, text, '5xx');
  const body = parse(request, status, text);
  const rest = request.path === '/plants';
  if (status !== 200) {
    if (rest ? !isErrorBody(body, status) : !isTrpcError(body, status))
      fail(request, status, text, rest ? 'not the Error shape' : 'not a tRPC error envelope');
    return;
  }
  let plant: SentPlant;
  try {
    plant = sentPlant(request.body);
  } catch (error) {
    return fail(request, status, text, `200, but ${error instanceof Error ? error.message : String(error)}`);
  }
  const answered = rest ? body : (body as { result?: { data?: unknown } }).result?.data;
  const expected = { name: plant.name, ...(plant.tag !== undefined && { tag: plant.tag }) };
  if (JSON.stringify(answered) !== JSON.stringify(expected)) fail(request, status, text, '200 with another plant than was sent');
  const id = Long.fromString(String(plant.id));
  const stored = await plants.findOne({ _id: id }, { promoteLongs: false });
  const { _id, createdAt, ...fields } = stored ?? ({} as Partial<PlantDocument>);
  if (
    !stored ||
    !(_id instanceof Long) ||
    !_id.equals(id) ||
    !(createdAt instanceof Date) ||
    JSON.stringify(fields) !== JSON.stringify(expected)
  ) {
    fail(request, status, text, `200, but stored ${JSON.stringify(stored)}`);
  }
}

function isErrorBody(body: unknown, status: number): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const keys = Object.keys(body).sort().join(',');
  const { error, message } = body as Record<string, unknown>;
  return keys === 'error,message' && error === status && typeof message === 'string' && message !== '';
}

function isTrpcError(body: unknown, status: number): boolean {
  const error = (body as { error?: { message?: unknown; code?: unknown; data?: { code?: unknown; httpStatus?: unknown } } } | null)?.error;
  return (
    typeof error?.message === 'string' &&
    typeof error.code === 'number' &&
    typeof error.data?.code === 'string' &&
    error.data.httpStatus === status
  );
}
