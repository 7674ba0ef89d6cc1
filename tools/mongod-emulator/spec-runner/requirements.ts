// runOnRequirements: whether the server under test can run a test, and if not, why in one line.
import type { Document, MongoClient } from 'mongodb';
import { sameValue } from './matching.js';

export interface ServerFacts {
  version: string;
  topology: 'single' | 'replicaset' | 'sharded' | 'load-balanced';
  /** getParameter answers, fetched once per parameter. */
  parameter(name: string): Promise<unknown>;
}

function versionParts(version: string): number[] {
  return version.split('.').map((part) => Number.parseInt(part, 10) || 0);
}

/** Compares dotted versions numerically, a missing component counting as 0. */
export function compareVersions(a: string, b: string): number {
  const left = versionParts(a);
  const right = versionParts(b);
  for (let i = 0; i < Math.max(left.length, right.length); i += 1) {
    const difference = (left[i] ?? 0) - (right[i] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  return 0;
}

export async function serverFacts(client: MongoClient): Promise<ServerFacts> {
  const admin = client.db('admin');
  const [info, hello] = await Promise.all([admin.command({ buildInfo: 1 }), admin.command({ hello: 1 })]);
  const topology =
    hello.msg === 'isdbgrid'
      ? 'sharded'
      : hello.serviceId !== undefined
        ? 'load-balanced'
        : typeof hello.setName === 'string'
          ? 'replicaset'
          : 'single';
  const cache = new Map<string, Promise<unknown>>();
  return {
    version: String(info.version),
    topology,
    parameter(name) {
      let answer = cache.get(name);
      if (!answer) {
        answer = admin.command({ getParameter: 1, [name]: 1 }).then(
          (reply) => reply[name] as unknown,
          () => undefined,
        );
        cache.set(name, answer);
      }
      return answer;
    },
  };
}

/** Why one requirement is not met, or undefined when it is. */
async function unmet(requirement: Document, server: ServerFacts): Promise<string | undefined> {
  const { minServerVersion, maxServerVersion, topologies, serverParameters, auth, csfle, serverless, authMechanism } = requirement;
  if (typeof minServerVersion === 'string' && compareVersions(server.version, minServerVersion) < 0)
    return `needs server >= ${minServerVersion}`;
  if (typeof maxServerVersion === 'string' && compareVersions(server.version, maxServerVersion) > 0)
    return `needs server <= ${maxServerVersion}`;
  if (Array.isArray(topologies)) {
    const accepted = topologies.map(String).map((name) => (name === 'sharded-replicaset' ? 'sharded' : name));
    if (!accepted.includes(server.topology)) return `needs topology ${topologies.join(' or ')}`;
  }
  if (auth === true) return 'needs authentication enabled';
  if (authMechanism !== undefined) return `needs auth mechanism ${String(authMechanism)}`;
  if (csfle !== undefined && csfle !== false) return 'needs client-side field level encryption';
  if (serverless === 'require') return 'needs Atlas Serverless';
  if (serverParameters !== undefined && typeof serverParameters === 'object' && serverParameters !== null) {
    for (const [name, wanted] of Object.entries(serverParameters as Document)) {
      if (!sameValue(wanted, await server.parameter(name))) return `needs server parameter ${name}=${JSON.stringify(wanted)}`;
    }
  }
  return undefined;
}

/** Undefined when any requirement is met (or there are none), else why none is, naming the server. */
export async function unmetRequirements(requirements: unknown, server: ServerFacts): Promise<string | undefined> {
  if (!Array.isArray(requirements) || requirements.length === 0) return undefined;
  const reasons: string[] = [];
  for (const requirement of requirements as Document[]) {
    const reason = await unmet(requirement, server);
    if (reason === undefined) return undefined;
    reasons.push(reason);
  }
  return `${reasons.join('; or ')} (server is ${server.version}, ${server.topology})`;
}
