import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../server/config.js';

describe('loadConfig', () => {
  it('has defaults for a local run', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      env: 'development',
      host: '127.0.0.1',
      port: 3000,
      logLevel: 'info',
      apiTokens: [],
      corsOrigins: [],
      mongodb: { uri: undefined, dbName: 'plantstore', timeoutMs: 3000, writeConcern: { w: 'majority', journal: true } },
      http: { trustProxy: false },
    });
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
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      logLevel: 'warn',
      apiTokens: ['one', 'two'],
      corsOrigins: ['https://a.example', 'https://b.example'],
      mongodb: { dbName: 'garden', writeConcern: { w: 1, journal: false } },
      http: { trustProxy: ['10.0.0.1', '192.168.0.0/16', 'fd00::/8', 'loopback'] },
    });
    expect(loadConfig({ TRUST_PROXY: 'true' }).http.trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: 'false' }).http.trustProxy).toBe(false);
  });

  it('treats blank values as unset', () => {
    expect(loadConfig({ PORT: '', MONGODB_URI: ' ' })).toMatchObject({ port: 3000, mongodb: { uri: undefined } });
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ MONGODB_URI: 'http://localhost' }, 'MONGODB_URI: must be a MongoDB connection string'],
    [{ CORS_ORIGINS: 'not a url' }, 'CORS_ORIGINS'],
    [{ API_TOKENS: 'has space' }, 'API_TOKENS'],
    // Fastify 5 reads a hop count as "trust no one"; saying so beats silently ignoring it.
    [{ TRUST_PROXY: '2' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: 'proxy.example' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '10.0.0.1,,yes' }, 'TRUST_PROXY'],
    [{ METRICS_PORT: 'ninety' }, 'METRICS_PORT'],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT: must be an http(s) URL'],
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
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing).toStrictEqual({ serviceName: 'plant-store' });
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'console', OTEL_SERVICE_NAME: 'plants-eu' }).tracing).toStrictEqual({ serviceName: 'plants-eu' });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).tracing).toBeUndefined();
  });

  it('refuses to run in production without API_TOKENS and MONGODB_URI', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow('API_TOKENS and MONGODB_URI must be set when NODE_ENV=production');
    expect(() => loadConfig({ NODE_ENV: 'production', API_TOKENS: 'x' })).toThrow('MONGODB_URI must be set');
    expect(loadConfig({ NODE_ENV: 'production', API_TOKENS: 'x', MONGODB_URI: 'mongodb://db/p' }).env).toBe('production');
  });
});
