import { deepStrictEqual, match, strictEqual } from 'node:assert/strict';
import type { Request } from 'autocannon';
import { BASELINE_DELETE_BY_BODY_PATH, BASELINE_PATH } from './baseline-app.js';
import type { PeerKind, ServerKind } from './child-protocol.js';
import { entityTagOf } from '../index.js';
import {
  CHANGED_NAME,
  createPlantRequest,
  deleteByBodyRequest,
  deleteByPathRequest,
  getRequest,
  LIST_LIMIT,
  PLANT_NAME,
  PLANT_TAG,
  updateByBodyRequest,
  updateRequest,
} from './plant-requests.js';

/** What every answer of a contender must be: its status, its body (undefined: empty) and its Link header. */
export interface ExpectedAnswer {
  status: number;
  body: unknown;
  link?: string;
  /** The body when it depends on the request (the id an update names), from the request's path or body. */
  bodyFor?: (request: SentRequest) => unknown;
  /**
   * The `ETag` of an answer that carries one plant, as the service gives it: computed from the request, or any strong
   * tag where the store's revision decides it (an update's).
   */
  entityTag?: ((request: SentRequest) => string) | 'strong';
}

interface SentRequest {
  path: string;
  body: string | undefined;
}

/** One way of doing an operation over HTTP that the benchmark times. */
export interface Contender {
  label: string;
  /** Its row in the results table, where one row gathers the operations (the label when absent). */
  row?: string;
  server: ServerKind;
  /** The autocannon request this contender is timed with. */
  request: (token: string) => Request;
  /** Checked in full once before any timing; during the rounds, every status is checked. */
  expected: ExpectedAnswer;
  /** Shown for reference, with no target. */
  reference?: boolean;
  /** Another stack doing the same work (bench/peers/): the service's routes are held to the best of them. */
  peer?: boolean;
  /**
   * The label of the reference this route is held to instead of the peers, when the peers do
   * other work on the wire (a body-less REST delete against tRPC's JSON in, JSON out).
   */
  judgedAgainst?: string;
  /** The label of a reference of the same operation this route may cost no more server CPU than, on every store. */
  costCeiling?: string;
}

export type OperationName = 'create' | 'list' | 'list-by-tag' | 'update' | 'delete';

/** An operation the benchmark times, with its contenders: the baseline first, as every ratio is to it. */
export interface Operation {
  name: OperationName;
  title: string;
  contenders: readonly Contender[];
}

const plant = { name: PLANT_NAME, tag: PLANT_TAG };
/** A new plant's tag: the id the create sent, at the store's first revision. */
const createdTag = ({ body }: SentRequest) => entityTagOf((JSON.parse(body ?? '{}') as { id: number }).id, 0, plant);
const created = { status: 200, body: plant, entityTag: createdTag };
const createdOverTrpc = { ...created, body: { result: { data: plant } } };
const BASELINE_LABEL = 'baseline: plain Fastify route, same app';
const REST_ROW = 'REST (trpc-to-openapi)';
const TRPC_ROW = 'tRPC';

/** The peer stacks (bench/peers/): each serves the REST routes at the service's paths. */
const PEERS: readonly { label: string; server: PeerKind }[] = [
  { label: 'peer: Fastify + fastify-type-provider-zod', server: 'peer-fastify-zod' },
  { label: 'peer: Hono + @hono/zod-openapi', server: 'peer-hono' },
  { label: 'peer: oRPC OpenAPIHandler', server: 'peer-orpc' },
];

/** One contender per peer, sending the REST request and expecting the REST route's answer. */
const peerContenders = (request: (token: string) => Request, expected: ExpectedAnswer): Contender[] =>
  PEERS.map(({ label, server }) => ({ label, server, request, expected, peer: true }));

export const CREATE: Operation = {
  name: 'create',
  title: 'create (a new plant each request)',
  contenders: [
    {
      label: BASELINE_LABEL,
      server: 'baseline',
      request: (token) => createPlantRequest(BASELINE_PATH, token),
      expected: created,
    },
    {
      label: 'POST /plants (trpc-to-openapi)',
      row: REST_ROW,
      server: 'service',
      request: (token) => createPlantRequest('/plants', token),
      expected: created,
    },
    {
      label: '/trpc/createPlant (tRPC)',
      row: TRPC_ROW,
      server: 'service',
      request: (token) => createPlantRequest('/trpc/createPlant', token),
      expected: createdOverTrpc,
    },
    {
      label: 'reference: the route in bare Fastify',
      server: 'bare',
      request: (token) => createPlantRequest('/plants', token),
      expected: created,
      reference: true,
    },
    ...peerContenders((token) => createPlantRequest('/plants', token), created),
    // The cost of observability, next to POST /plants with both off (bench/observed-service.ts).
    {
      label: 'POST /plants, metrics on (METRICS_PORT)',
      server: 'service-metrics',
      request: (token) => createPlantRequest('/plants', token),
      expected: created,
      reference: true,
    },
    {
      label: 'POST /plants, tracing on (always_on, OTLP to a local stub)',
      server: 'service-tracing',
      request: (token) => createPlantRequest('/plants', token),
      expected: created,
      reference: true,
    },
  ],
};

/** The first page, as both stores answer it: plants 1 to LIST_LIMIT (bench/noop-plant-store.ts, or seeded). */
const firstPage = Array.from({ length: LIST_LIMIT }, (_, index) => ({ id: index + 1, ...plant }));
const nextPageLink = (path: string) => `<${path}?limit=${LIST_LIMIT}&after=${LIST_LIMIT}>; rel="next"`;
const listInput = encodeURIComponent(JSON.stringify({ limit: LIST_LIMIT }));

export const LIST: Operation = {
  name: 'list',
  title: `list (a page of ${LIST_LIMIT})`,
  contenders: [
    {
      label: BASELINE_LABEL,
      server: 'baseline',
      request: (token) => getRequest(`${BASELINE_PATH}?limit=${LIST_LIMIT}`, token),
      expected: { status: 200, body: firstPage, link: nextPageLink(BASELINE_PATH) },
    },
    {
      label: `GET /plants?limit=${LIST_LIMIT} (trpc-to-openapi)`,
      row: REST_ROW,
      server: 'service',
      request: (token) => getRequest(`/plants?limit=${LIST_LIMIT}`, token),
      expected: { status: 200, body: firstPage, link: nextPageLink('/plants') },
    },
    {
      label: '/trpc/listPlants (tRPC)',
      row: TRPC_ROW,
      server: 'service',
      request: (token) => getRequest(`/trpc/listPlants?input=${listInput}`, token),
      expected: { status: 200, body: { result: { data: firstPage } } },
    },
    ...peerContenders((token) => getRequest(`/plants?limit=${LIST_LIMIT}`, token), {
      status: 200,
      body: firstPage,
      link: nextPageLink('/plants'),
    }),
  ],
};

const tagInput = encodeURIComponent(JSON.stringify({ limit: LIST_LIMIT, tag: PLANT_TAG }));
const nextTagPageLink = (path: string) => `<${path}?tag=${PLANT_TAG}&limit=${LIST_LIMIT}&after=${LIST_LIMIT}>; rel="next"`;

/** The list filtered by one tag: every seeded plant has it, so a page is as long as the whole list's. */
export const LIST_BY_TAG: Operation = {
  name: 'list-by-tag',
  title: `list by tag (a page of ${LIST_LIMIT})`,
  contenders: [
    {
      label: BASELINE_LABEL,
      server: 'baseline',
      request: (token) => getRequest(`${BASELINE_PATH}?tag=${PLANT_TAG}&limit=${LIST_LIMIT}`, token),
      expected: { status: 200, body: firstPage, link: nextTagPageLink(BASELINE_PATH) },
    },
    {
      label: `GET /plants?tag=${PLANT_TAG}&limit=${LIST_LIMIT} (trpc-to-openapi)`,
      row: REST_ROW,
      server: 'service',
      request: (token) => getRequest(`/plants?tag=${PLANT_TAG}&limit=${LIST_LIMIT}`, token),
      expected: { status: 200, body: firstPage, link: nextTagPageLink('/plants') },
    },
    {
      label: '/trpc/listPlants by tag (tRPC)',
      row: TRPC_ROW,
      server: 'service',
      request: (token) => getRequest(`/trpc/listPlants?input=${tagInput}`, token),
      expected: { status: 200, body: { result: { data: firstPage } } },
    },
  ],
};

const BASELINE_CREATE_REFERENCE = "reference: the baseline's create on the same store";
const REST_CREATE_REFERENCE = 'reference: POST /plants (trpc-to-openapi), a create on the same store';
const TRPC_CREATE_REFERENCE = 'reference: /trpc/createPlant (tRPC), a create on the same store';
/** The changed plant an update answers: the id it named, from its path or its body. */
const changed = (id: string) => ({ id: Number(id), name: CHANGED_NAME, tag: PLANT_TAG });
const idOfPath = ({ path }: SentRequest) => changed(path.slice(path.lastIndexOf('/') + 1));
const idOfBody = ({ body }: SentRequest) => changed(String((JSON.parse(body ?? '{}') as { id?: number }).id));

/** A change of a stored plant, judged against a create on the same store: it may cost no more server CPU. */
export const UPDATE: Operation = {
  name: 'update',
  title: 'update (a stored plant renamed each request)',
  contenders: [
    {
      label: BASELINE_LABEL,
      server: 'baseline',
      request: (token) => updateRequest(BASELINE_PATH, token, 'application/json'),
      expected: { status: 200, body: undefined, bodyFor: idOfPath, entityTag: 'strong' },
      // For scale only: how much more a change costs than a create with none of the service's layers.
      costCeiling: BASELINE_CREATE_REFERENCE,
    },
    {
      label: 'PATCH /plants/{id} (trpc-to-openapi)',
      row: REST_ROW,
      server: 'service',
      request: (token) => updateRequest('/plants', token),
      expected: { status: 200, body: undefined, bodyFor: idOfPath, entityTag: 'strong' },
      costCeiling: REST_CREATE_REFERENCE,
    },
    {
      label: '/trpc/updatePlant (tRPC)',
      row: TRPC_ROW,
      server: 'service',
      request: (token) => updateByBodyRequest('/trpc/updatePlant', token),
      expected: { status: 200, body: undefined, bodyFor: (request) => ({ result: { data: idOfBody(request) } }), entityTag: 'strong' },
      costCeiling: TRPC_CREATE_REFERENCE,
    },
    {
      label: REST_CREATE_REFERENCE,
      server: 'service',
      request: (token) => createPlantRequest('/plants', token),
      expected: created,
      reference: true,
    },
    {
      label: TRPC_CREATE_REFERENCE,
      server: 'service',
      request: (token) => createPlantRequest('/trpc/createPlant', token),
      expected: createdOverTrpc,
      reference: true,
    },
    {
      label: BASELINE_CREATE_REFERENCE,
      server: 'baseline',
      request: (token) => createPlantRequest(BASELINE_PATH, token),
      expected: created,
      reference: true,
    },
  ],
};

const TRPC_WIRE_SHAPE_DELETE = "reference: the baseline in tRPC's wire shape (JSON body in, JSON answer out)";

export const DELETE: Operation = {
  name: 'delete',
  title: 'delete (a stored plant each request)',
  contenders: [
    {
      label: BASELINE_LABEL,
      server: 'baseline',
      request: (token) => deleteByPathRequest(BASELINE_PATH, token),
      expected: { status: 204, body: undefined },
    },
    {
      label: 'DELETE /plants/{id} (trpc-to-openapi)',
      row: REST_ROW,
      server: 'service',
      request: (token) => deleteByPathRequest('/plants', token),
      expected: { status: 204, body: undefined },
    },
    {
      label: '/trpc/deletePlant (tRPC)',
      row: TRPC_ROW,
      server: 'service',
      request: (token) => deleteByBodyRequest('/trpc/deletePlant', token),
      expected: { status: 200, body: { result: {} } },
      judgedAgainst: TRPC_WIRE_SHAPE_DELETE,
    },
    {
      label: 'reference: the route in bare Fastify',
      server: 'bare',
      request: (token) => deleteByPathRequest('/plants', token),
      expected: { status: 204, body: undefined },
      reference: true,
    },
    {
      label: TRPC_WIRE_SHAPE_DELETE,
      server: 'baseline',
      request: (token) => deleteByBodyRequest(BASELINE_DELETE_BY_BODY_PATH, token),
      expected: { status: 200, body: { result: {} } },
      reference: true,
    },
    {
      label: 'reference: the baseline again, in processes of its own (A/A)',
      server: 'baseline-copy',
      request: (token) => deleteByPathRequest(BASELINE_PATH, token),
      expected: { status: 204, body: undefined },
      reference: true,
    },
    ...peerContenders((token) => deleteByPathRequest('/plants', token), { status: 204, body: undefined }),
  ],
};

export const OPERATIONS: readonly Operation[] = [CREATE, LIST, LIST_BY_TAG, UPDATE, DELETE];

/** Sends the contender's request once and checks the whole answer, so a wrong answer cannot pass for a fast one. */
export async function checkAnswers(contender: Contender, baseUrl: string, token: string): Promise<void> {
  const template = contender.request(token);
  const request = typeof template.setupRequest === 'function' ? template.setupRequest(template, {}) : template;
  const response = await fetch(`${baseUrl}${request.path ?? '/'}`, {
    method: request.method ?? 'GET',
    headers: request.headers as Record<string, string> | undefined,
    body: typeof request.body === 'string' ? request.body : undefined,
  });
  const text = await response.text();
  const { status, link, bodyFor, entityTag } = contender.expected;
  const sent = { path: request.path ?? '/', body: typeof request.body === 'string' ? request.body : undefined };
  const body = bodyFor ? bodyFor(sent) : contender.expected.body;
  strictEqual(response.status, status, `${contender.label}: expected ${status}, got ${response.status} ${text}`);
  if (body === undefined) strictEqual(text, '', `${contender.label}: expected an empty body`);
  else deepStrictEqual(JSON.parse(text), body, `${contender.label}: unexpected body`);
  strictEqual(response.headers.get('link') ?? undefined, link, `${contender.label}: unexpected Link header`);
  const etag = response.headers.get('etag') ?? undefined;
  if (entityTag === 'strong') match(etag ?? '', /^"[\w-]{22}"$/, `${contender.label}: expected a strong ETag, got ${etag}`);
  else strictEqual(etag, entityTag?.(sent), `${contender.label}: unexpected ETag`);
}
