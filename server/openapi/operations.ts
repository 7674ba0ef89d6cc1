import type { OpenAPIObject } from 'trpc-to-openapi';

/** The parts of an OpenAPI operation this folder reads and rewrites. */
export interface OpenApiOperation {
  operationId?: string;
  description?: string;
  /** Security requirements: scheme name to the scopes (OpenAPI 3.1: for an http scheme, role names) needed. */
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; description?: string; schema?: { description?: string } }[];
  requestBody?: { content?: Record<string, MediaType | undefined> };
  responses: Record<string, OpenApiResponse | undefined>;
}

export interface OpenApiResponse {
  description: string;
  headers?: Record<string, unknown>;
  content?: Record<string, MediaType | undefined>;
}

export interface MediaType {
  schema?: unknown;
  examples?: Record<string, unknown>;
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

export function operationsOf(document: OpenAPIObject): OpenApiOperation[] {
  return Object.values(document.paths ?? {}).flatMap((pathItem) =>
    METHODS.flatMap((method) => {
      const operation = (pathItem as Record<string, OpenApiOperation | undefined>)[method];
      return operation ? [operation] : [];
    }),
  );
}
