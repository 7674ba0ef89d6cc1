import type { OpenAPIObject } from 'trpc-to-openapi';

/** The parts of an OpenAPI operation this folder reads and rewrites. */
export interface OpenApiOperation {
  operationId?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  /** The scopes a token must grant: a bearer scheme carries none in its requirement. */
  'x-required-scopes'?: string[];
  parameters?: OpenApiParameter[];
  requestBody?: { content?: Record<string, MediaType | undefined> };
  responses: Record<string, OpenApiResponse | undefined>;
}

export interface OpenApiParameter {
  name: string;
  in: string;
  description?: string;
  schema?: { description?: string; type?: string; format?: string };
  examples?: Record<string, unknown>;
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
