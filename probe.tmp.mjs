import { buildApp, loadConfig } from '/work/main/dist/index.js';
const config = loadConfig({ ...process.env, MONGODB_URI: 'mongodb://127.0.0.1:1/x', API_TOKENS: 'abcdefghijklmnopqrstuvwxyz123456', NODE_ENV: 'production', LOG_LEVEL: 'fatal' });
const store = { create: async (p) => ({ ...p, revision: 0 }), list: async () => ({ plants: [], more: false }), get: async () => undefined, delete: async () => true, update: async (id, patch) => ({ id, name: patch.name ?? 'x', revision: 1 }) };
const app = await buildApp(config, { store });
const tok = { authorization: 'Bearer abcdefghijklmnopqrstuvwxyz123456' };
for (const ct of ['text/plain', ';;;', 'application/', 'bogus', '', 'application/json;;;', 'application/merge-patch+json; charset=utf-8']) {
  for (const [method, url] of [['PATCH', '/plants/1'], ['POST', '/plants']]) {
    const r = await app.inject({ method, url, headers: { ...tok, 'content-type': ct }, payload: '{"name":"x"}' });
    console.log(method, JSON.stringify(ct), r.statusCode, r.headers['accept-patch'] ?? '-', r.body.slice(0, 150));
  }
}
for (const [method, url] of [['GET', '/plants/%33%31'], ['GET', '/plants/3%31'], ['DELETE', '/plants/%33']]) {
  const r = await app.inject({ method, url, headers: tok });
  console.log(method, url, r.statusCode, r.body.slice(0, 150));
}
await app.close();
