// The Kubernetes example of docs/deployment.md: each manifest valid against Kubernetes' own schemas, and
// the manifests agreeing with each other and with what the service reads and serves.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { Secret, Service, type IContainer, type IEnvVar } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '../../server/config.js';
import { PROJECT_ROOT } from '../helpers/processes.js';

const DIR = join(PROJECT_ROOT, 'docs/kubernetes');
/** The longest the service takes to close after its shutdown delay: server/main.ts exits 1 past it. */
const DRAIN_MS = 10_000;

const MODELS = {
  'apps/v1 Deployment': Deployment,
  'v1 Service': Service,
  'v1 Secret': Secret,
  'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
};
type Kind = keyof typeof MODELS;

interface Manifest {
  file: string;
  kind: Kind;
  value: { apiVersion: string; kind: string; metadata?: { name?: string } };
}

function readManifests(): Manifest[] {
  return readdirSync(DIR)
    .filter((file) => file.endsWith('.yaml'))
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(DIR, file), 'utf8')).map((document) => {
        expect(document.errors, file).toStrictEqual([]);
        const value = document.toJS() as Manifest['value'];
        const kind = `${value.apiVersion} ${value.kind}`;
        expect(Object.keys(MODELS), `${file}: a manifest of a kind this test knows`).toContain(kind);
        return { file, kind: kind as Kind, value };
      }),
    );
}

const manifests = readManifests();
const only = <K extends Kind>(kind: K) => {
  const found = manifests.filter((manifest) => manifest.kind === kind);
  expect(found, kind).toHaveLength(1);
  return new MODELS[kind]((found[0] as Manifest).value) as InstanceType<(typeof MODELS)[K]>;
};

describe('the Kubernetes example', () => {
  it.each(manifests.map((manifest) => [`${manifest.file}: ${manifest.kind}`, manifest] as const))(
    '%s is valid against the Kubernetes schema',
    (_, { kind, value }) => {
      expect(() => {
        new MODELS[kind](value).validate();
      }).not.toThrow();
    },
  );

  it('holds a Deployment, a Service and a Secret that agree with each other', () => {
    const deployment = only('apps/v1 Deployment');
    const service = only('v1 Service');
    const secret = only('v1 Secret');
    const pdb = only('policy/v1 PodDisruptionBudget');
    const labels = deployment.spec?.template.metadata?.labels;
    expect(deployment.spec?.selector.matchLabels).toStrictEqual(labels);
    expect(pdb.spec?.selector?.matchLabels).toStrictEqual(labels);
    expect(Object.entries(service.spec?.selector ?? {}).every(([key, value]) => labels?.[key] === value)).toBe(true);
    const container = deployment.spec?.template.spec?.containers[0] as IContainer;
    const portNames = (container.ports ?? []).map((port) => port.name);
    for (const port of service.spec?.ports ?? []) expect(portNames).toContain(port.targetPort);
    for (const { valueFrom } of container.env ?? []) {
      const ref = valueFrom?.secretKeyRef;
      if (ref)
        expect([ref.name, Object.keys(secret.stringData ?? {})]).toStrictEqual([
          secret.metadata?.name,
          expect.arrayContaining([ref.key]) as unknown,
        ]);
    }
  });

  it('configures the service as the image runs it: valid configuration, the probes it serves, room for the shutdown delay and the drain', () => {
    const deployment = only('apps/v1 Deployment');
    const secret = only('v1 Secret');
    const pod = deployment.spec?.template.spec;
    const container = pod?.containers[0] as IContainer;
    const valueOf = ({ value, valueFrom }: IEnvVar) =>
      value ?? (valueFrom?.secretKeyRef ? secret.stringData?.[valueFrom.secretKeyRef.key] : undefined);
    const env = Object.fromEntries((container.env ?? []).map((variable) => [variable.name, valueOf(variable)]));
    // The image sets NODE_ENV=production, HOST=0.0.0.0 and PORT=3000 (Dockerfile).
    const config = loadConfig({ NODE_ENV: 'production', HOST: '0.0.0.0', PORT: '3000', ...env });
    expect(container.ports?.find((port) => port.name === 'http')?.containerPort).toBe(config.port);
    expect([container.readinessProbe?.httpGet?.path, container.livenessProbe?.httpGet?.path]).toStrictEqual(['/readyz', '/healthz']);
    // Set, not left to Kubernetes' defaults (its schemas accept unknown fields, so a misspelt one reads as unset).
    expect(config.shutdownDelayMs).toBeGreaterThan(0);
    expect((pod?.terminationGracePeriodSeconds ?? 0) * 1000).toBeGreaterThan(config.shutdownDelayMs + DRAIN_MS);
    // A readiness probe's timeout longer than /readyz may take: MONGODB_TIMEOUT_MS, and its tenth.
    expect((container.readinessProbe?.timeoutSeconds ?? 0) * 1000).toBeGreaterThan(config.mongodb.timeoutMs * 1.1);
    expect(pod?.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    expect(container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
  });
});
