import { deepStrictEqual } from 'node:assert/strict';
import { BASELINE_PATH } from './baseline-app.js';
import type { ServerKind } from './child-protocol.js';
import { PLANT_NAME, PLANT_TAG, newPlantBody } from './plant-requests.js';

/** One way of creating a plant over HTTP that the benchmark times. */
export interface Contender {
  label: string;
  server: ServerKind;
  path: string;
  /** What a 200 answers for a new plant, checked once before any timing. */
  expectedBody: unknown;
  /** Shown for reference, with no target. */
  reference?: boolean;
}

const plant = { name: PLANT_NAME, tag: PLANT_TAG };

export const BASELINE: Contender = { label: 'baseline: plain Fastify route, same app', server: 'baseline', path: BASELINE_PATH, expectedBody: plant };
export const REST: Contender = { label: 'POST /plants (trpc-to-openapi)', server: 'service', path: '/plants', expectedBody: plant };
export const TRPC: Contender = { label: '/trpc/createPlant (tRPC)', server: 'service', path: '/trpc/createPlant', expectedBody: { result: { data: plant } } };

export const BARE: Contender = { label: 'reference: the route in bare Fastify', server: 'bare', path: '/plants', expectedBody: plant, reference: true };

/** The baseline first: every ratio is to it. */
export const CONTENDERS: readonly Contender[] = [BASELINE, REST, TRPC, BARE];

/** Sends one new plant and checks the answer, so a wrong 200 cannot pass for a fast one. */
export async function checkAnswers(contender: Contender, baseUrl: string, token: string): Promise<void> {
  const response = await fetch(`${baseUrl}${contender.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: newPlantBody(),
  });
  const body: unknown = await response.json();
  if (response.status !== 200) throw new Error(`${contender.label}: expected 200, got ${response.status} ${JSON.stringify(body)}`);
  deepStrictEqual(body, contender.expectedBody, `${contender.label}: unexpected body`);
}
