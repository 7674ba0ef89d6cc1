// The served /openapi.json through the linters people point at an API: Spectral's `spectral:oas` ruleset and
// Redocly's `recommended` config, both run in process, offline, on the document's text as served. Neither may
// report an error or a warning (Spectral's hints and infos are advice, not findings).
import { createConfig, lintFromString } from '@redocly/openapi-core';
import spectralCore, { type RulesetDefinition } from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { testConfig } from '../helpers/app.js';

let app: FastifyInstance;
let served = '';

beforeAll(async () => {
  app = await buildApp(testConfig());
  const response = await app.inject({ url: '/openapi.json' });
  expect(response.statusCode).toBe(200);
  served = response.body;
});
afterAll(async () => {
  await app.close();
});

describe('/openapi.json under the ecosystem linters', () => {
  it("passes Spectral's spectral:oas with no error and no warning", async () => {
    const spectral = new spectralCore.Spectral();
    // The rulesets package types its rulesets loosely; `spectral:oas` is this one, with its recommended rules.
    spectral.setRuleset({ extends: [oas as RulesetDefinition] });
    const results = await spectral.run(new spectralCore.Document(served, spectralParsers.Json, '/openapi.json'));
    // Spectral's severities: 0 error, 1 warning, 2 information, 3 hint.
    const findings = results
      .filter((result) => (result.severity as number) <= 1)
      .map((result) => `${result.code} at ${result.path.join('.')}: ${result.message}`);
    expect(findings).toEqual([]);
  });

  it("passes Redocly's recommended config with no error and no warning", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: served, absoluteRef: '/openapi.json', config });
    // Every problem Redocly reports is an error or a warning.
    const findings = problems.map(
      (problem) => `${problem.severity} ${problem.ruleId} at ${problem.location[0]?.pointer ?? '?'}: ${problem.message}`,
    );
    expect(findings).toEqual([]);
  });
});
