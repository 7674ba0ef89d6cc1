import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../server/config.js';
import { ConfigError } from '../server/env/config-error.js';
import { fastifyOptions } from '../server/fastify-options.js';

describe('loadConfig', () => {
  it('has defaults for a local run', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      env: 'development',
      host: '127.0.0.1',
      port: 3000,
      logLevel: 'info',
      apiTokens: [],
      apiTokenHashes: [],
      jwt: undefined,
      corsOrigins: [],
      shutdownDelayMs: 0,
      mongodb: { uri: undefined, dbName: 'plantstore', timeoutMs: 3000, writeConcern: { w: 'majority', journal: true } },
      http: { trustProxy: false, responseTimeoutMs: 10_000, maxPipelinedRequests: 16, maxConnections: undefined },
    });
    expect(config.devDir).toBe(join(process.cwd(), '.dev'));
    expect(loadConfig({ PLANT_STORE_DEV_DIR: '/tmp/plant-store-data' }).devDir).toBe('/tmp/plant-store-data');
  });

  it('keeps an idle connection longer than a load balancer in front commonly does (60 s), so the balancer closes it first', () => {
    expect(loadConfig({}).http.keepAliveTimeoutMs).toBeGreaterThan(60_000);
  });

  it('has default timeouts under which a stalled request is answered 408 before its idle connection is closed', () => {
    const config = loadConfig({});
    const options = fastifyOptions(config, undefined);
    const checkedEvery = options.http?.connectionsCheckingInterval ?? Number.POSITIVE_INFINITY;
    expect(config.http.requestTimeoutMs + checkedEvery).toBeLessThan(config.http.responseTimeoutMs);
    // No longer than RESPONSE_TIMEOUT_MS: a client that never reads an answer is not held longer than it says.
    expect(options.connectionTimeout).toBe(config.http.responseTimeoutMs);
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      LOG_LEVEL: 'warn',
      MONGODB_URI: 'mongodb://db1:27017,db2:27017/garden?replicaSet=rs0',
      API_TOKENS: ' one , two ,',
      CORS_ORIGINS: 'https://a.example,https://b.example',
      MONGODB_WRITE_CONCERN: '1',
      MONGODB_JOURNAL: 'false',
      TRUST_PROXY: '10.0.0.1, 192.168.0.0/16,fd00::/8,loopback',
      SHUTDOWN_DELAY_MS: '5000',
    });
    expect(config).toMatchObject({
      shutdownDelayMs: 5000,
      port: 8080,
      host: '0.0.0.0',
      logLevel: 'warn',
      apiTokens: [
        { name: 'API_TOKENS#1', token: 'one' },
        { name: 'API_TOKENS#2', token: 'two' },
      ],
      corsOrigins: ['https://a.example', 'https://b.example'],
      mongodb: { dbName: 'garden', writeConcern: { w: 1, journal: false } },
      http: { trustProxy: ['10.0.0.1', '192.168.0.0/16', 'fd00::/8', 'loopback'] },
    });
    expect(loadConfig({ TRUST_PROXY: 'true' }).http.trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: 'false' }).http.trustProxy).toBe(false);
  });

  it('reads the database name from MONGODB_URI percent-decoded, as the driver does', () => {
    expect(loadConfig({ MONGODB_URI: 'mongodb://db:27017/gar%64en' }).mongodb.dbName).toBe('garden');
    expect(loadConfig({ MONGODB_URI: 'mongodb://db:27017/' }).mongodb.dbName).toBe('plantstore');
  });

  it('treats blank values as unset', () => {
    expect(loadConfig({ PORT: '', MONGODB_URI: ' ' })).toMatchObject({ port: 3000, mongodb: { uri: undefined } });
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT: must be a port number from 0 to 65535'],
    [{ PORT: '70000' }, 'PORT: must be a port number from 0 to 65535'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ MONGODB_URI: 'http://localhost' }, 'MONGODB_URI: must be a MongoDB connection string'],
    [{ MONGODB_WRITE_CONCERN: '0' }, 'MONGODB_WRITE_CONCERN: must be majority or a number of members, from 1 to 50'],
    [{ MONGODB_WRITE_CONCERN: '51' }, 'MONGODB_WRITE_CONCERN: must be majority or a number of members, from 1 to 50'],
    [{ MONGODB_URI: 'mongodb://db:27017/plant$store' }, 'MONGODB_URI: names a database MongoDB refuses'],
    [{ MONGODB_URI: 'mongodb://db:27017/plant%2Estore' }, 'MONGODB_URI: names a database MongoDB refuses'],
    [{ MONGODB_URI: `mongodb://db:27017/${'p'.repeat(64)}` }, 'MONGODB_URI: names a database MongoDB refuses'],
    [{ CORS_ORIGINS: 'not a url' }, 'CORS_ORIGINS'],
    [{ API_TOKENS: 'name token and-more' }, 'API_TOKENS: item 1 is not "value" or "name value"'],
    [{ API_TOKENS: 'fine, t\u00f6ken' }, 'API_TOKENS: item 2 is not'],
    [{ API_TOKEN_HASHES: 'ci abc123' }, 'API_TOKEN_HASHES: item 1 is not'],
    [{ AUTH_JWKS_URL: 'not a url', AUTH_ISSUER: 'i', AUTH_AUDIENCE: 'a' }, 'AUTH_JWKS_URL'],
    [{ AUTH_JWKS_URL: 'https://user:pass@id.example/jwks', AUTH_ISSUER: 'i', AUTH_AUDIENCE: 'a' }, 'AUTH_JWKS_URL'],
    [{ AUTH_JWKS_URL: 'https://id.example/jwks', AUTH_AUDIENCE: 'a' }, 'AUTH_ISSUER must be set when AUTH_JWKS_URL is set'],
    [{ AUTH_JWKS_URL: 'https://id.example/jwks', AUTH_ISSUER: 'i' }, 'AUTH_AUDIENCE must be set when AUTH_JWKS_URL is set'],
    [{ AUTH_ISSUER: 'i', AUTH_AUDIENCE: 'a' }, 'AUTH_ISSUER and AUTH_AUDIENCE are set only with AUTH_JWKS_URL'],
    [{ AUTH_ISSUER: 'has space' }, 'AUTH_ISSUER'],
    [{ AUTH_AUDIENCE: ' , ' }, 'AUTH_AUDIENCE'],
    [{ AUTH_CLOCK_SKEW_S: '301' }, 'AUTH_CLOCK_SKEW_S'],
    [{ AUTH_CLOCK_SKEW_S: 'half a minute' }, 'AUTH_CLOCK_SKEW_S'],
    [{ AUTH_JWKS_COOLDOWN_S: '0' }, 'AUTH_JWKS_COOLDOWN_S'],
    [{ AUTH_REQUIRE_AT_JWT: 'yes' }, 'AUTH_REQUIRE_AT_JWT'],
    // Fastify 5 reads a hop count as "trust no one"; saying so beats silently ignoring it.
    [{ TRUST_PROXY: '2' }, 'TRUST_PROXY'],
    [{ RESPONSE_TIMEOUT_MS: '6000' }, 'RESPONSE_TIMEOUT_MS must be more than twice MONGODB_TIMEOUT_MS (3000)'],
    [{ MAX_PIPELINED_REQUESTS: '0' }, 'MAX_PIPELINED_REQUESTS'],
    [{ MAX_CONNECTIONS: 'many' }, 'MAX_CONNECTIONS'],
    [{ TRUST_PROXY: 'proxy.example' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '10.0.0.1,,yes' }, 'TRUST_PROXY'],
    [{ METRICS_PORT: 'ninety' }, 'METRICS_PORT: must be a port number from 0 to 65535'],
    [{ PORT: '8080', METRICS_PORT: '8080' }, 'METRICS_PORT must not be PORT (8080) on the same host'],
    [{ SHUTDOWN_DELAY_MS: '-1' }, 'SHUTDOWN_DELAY_MS'],
    [{ SHUTDOWN_DELAY_MS: '5s' }, 'SHUTDOWN_DELAY_MS'],
    [{ SHUTDOWN_DELAY_MS: '600001' }, 'SHUTDOWN_DELAY_MS: must be at most 600000'],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT: must be an http(s) URL'],
    [
      { OTEL_TRACES_EXPORTER: 'zipkin', OTEL_EXPORTER_ZIPKIN_ENDPOINT: 'zipkin:9411' },
      'OTEL_EXPORTER_ZIPKIN_ENDPOINT: must be an http(s) URL',
    ],
    [{ OTEL_TRACES_EXPORTER: 'jaeger' }, 'OTEL_TRACES_EXPORTER: must be a comma-separated list of otlp, console, zipkin, none'],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'http' }, 'OTEL_EXPORTER_OTLP_PROTOCOL: must be one of'],
    [{ OTEL_TRACES_SAMPLER: 'sometimes' }, 'OTEL_TRACES_SAMPLER'],
  ])('refuses %o with a message naming the variable', (env, expected) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(expected);
  });

  it('turns metrics and tracing on only when configured', () => {
    expect(loadConfig({})).toMatchObject({ metrics: undefined, tracing: undefined });
    expect(loadConfig({ HOST: '0.0.0.0', METRICS_PORT: '9464' }).metrics).toStrictEqual({ host: '0.0.0.0', port: 9464 });
    expect(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '10.0.0.2' }).metrics).toStrictEqual({ host: '10.0.0.2', port: 9464 });
    expect(loadConfig({ HOST: '10.0.0.1', PORT: '9464', METRICS_PORT: '9464', METRICS_HOST: '127.0.0.1' }).metrics).toStrictEqual({
      host: '127.0.0.1',
      port: 9464,
    });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing).toStrictEqual({ serviceName: 'plant-store' });
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'console', OTEL_SERVICE_NAME: 'plants-eu' }).tracing).toStrictEqual({
      serviceName: 'plants-eu',
    });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).tracing).toBeUndefined();
  });

  it('refuses to run in production without a way to accept callers and MONGODB_URI', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(
      'API_TOKENS (or API_TOKEN_HASHES, or AUTH_JWKS_URL) and MONGODB_URI must be set when NODE_ENV=production',
    );
    expect(() => loadConfig({ NODE_ENV: 'production', API_TOKENS: 'x' })).toThrow('MONGODB_URI must be set');
    for (const callers of [
      { API_TOKENS: 'x' },
      { API_TOKEN_HASHES: 'a'.repeat(64) },
      { AUTH_JWKS_URL: 'https://id.example/jwks', AUTH_ISSUER: 'i', AUTH_AUDIENCE: 'a' },
    ]) {
      expect(loadConfig({ NODE_ENV: 'production', MONGODB_URI: 'mongodb://db/p', ...callers }).env).toBe('production');
    }
  });

  it('refuses in production an AUTH_JWKS_URL that is not https, unless its host is loopback', () => {
    const production = { NODE_ENV: 'production', MONGODB_URI: 'mongodb://db:27017/plants', AUTH_ISSUER: 'i', AUTH_AUDIENCE: 'a' };
    for (const url of ['http://id.example/jwks', 'http://10.0.0.8/jwks', 'http://127.example/jwks', 'http://[::2]/jwks']) {
      expect(() => loadConfig({ ...production, AUTH_JWKS_URL: url })).toThrow(
        'AUTH_JWKS_URL must be an https URL when NODE_ENV=production',
      );
    }
    for (const url of [
      'https://id.example/jwks',
      'http://127.0.0.1:8080/jwks',
      'http://127.1.2.3/jwks',
      'http://localhost/jwks',
      'http://[::1]:9000/jwks',
    ]) {
      expect(loadConfig({ ...production, AUTH_JWKS_URL: url }).jwt?.jwksUrl).toBe(url);
    }
    // Outside production, http anywhere is accepted (a test provider, a laptop).
    expect(loadConfig({ AUTH_JWKS_URL: 'http://id.example/jwks', AUTH_ISSUER: 'i', AUTH_AUDIENCE: 'a' }).jwt?.jwksUrl).toBe(
      'http://id.example/jwks',
    );
  });

  it('reads named static tokens and hashes: "name value" or a bare value, as existing deployments write them', () => {
    const config = loadConfig({
      API_TOKENS: 'ci-deploy s3cr3t=, dGVzdA==,dashboard  x:y@z',
      API_TOKEN_HASHES: ` reporting ${'AB'.repeat(32)},${'0'.repeat(64)}`,
    });
    expect(config.apiTokens).toEqual([
      { name: 'ci-deploy', token: 's3cr3t=' },
      { name: 'API_TOKENS#2', token: 'dGVzdA==' },
      { name: 'dashboard', token: 'x:y@z' },
    ]);
    expect(config.apiTokenHashes).toEqual([
      { name: 'reporting', sha256: 'ab'.repeat(32) },
      { name: 'API_TOKEN_HASHES#2', sha256: '0'.repeat(64) },
    ]);
  });

  it('reads the JWT settings, with their defaults', () => {
    const env = {
      AUTH_JWKS_URL: 'https://id.example/.well-known/jwks.json',
      AUTH_ISSUER: 'https://id.example/',
      AUTH_AUDIENCE: 'https://api.example, plants',
    };
    expect(loadConfig(env).jwt).toEqual({
      jwksUrl: env.AUTH_JWKS_URL,
      issuer: env.AUTH_ISSUER,
      audiences: ['https://api.example', 'plants'],
      clockSkewS: 30,
      jwksCooldownS: 30,
      requireAtJwt: false,
    });
    expect(loadConfig({ ...env, AUTH_CLOCK_SKEW_S: '0', AUTH_JWKS_COOLDOWN_S: '5', AUTH_REQUIRE_AT_JWT: 'true' }).jwt).toMatchObject({
      clockSkewS: 0,
      jwksCooldownS: 5,
      requireAtJwt: true,
    });
  });

  it('never echoes a token in a refusal', () => {
    expect(() => loadConfig({ API_TOKENS: 'ok, bad t\u00f6ken-Secret9' })).toThrow(ConfigError);
    expect(() => loadConfig({ API_TOKENS: 'ok, bad t\u00f6ken-Secret9' })).not.toThrow(/Secret9/);
  });
});
