// Reading OpenAPI documents in tests: ours over HTTP from the built app, with every $ref resolved
// by the validator's own dereferencer, and flattened to the shapes the interface's contract states.
import { dereference } from '@readme/openapi-parser';
import type { FastifyInstance } from 'fastify';
import { int64Json } from '../../schemas/int64-json.js';

export interface SchemaObject {
  $ref?: string;
  type?: string;
  format?: string;
  properties?: Record<string, SchemaObject>;
  required?: string[];
  allOf?: SchemaObject[];
  items?: SchemaObject;
}

export interface MediaType {
  schema?: SchemaObject;
  examples?: Record<string, { summary?: string; description?: string; value: unknown }>;
}

export interface Operation {
  operationId?: string;
  description?: string;
  parameters?: {
    name: string;
    in: string;
    required?: boolean;
    schema?: Record<string, unknown>;
    examples?: Record<string, { summary?: string; value: unknown }>;
  }[];
  security?: Record<string, string[]>[];
  requestBody?: { required?: boolean; content: Record<string, MediaType> };
  responses: Record<string, { description: string; headers?: Record<string, unknown>; content?: Record<string, MediaType> }>;
}

export interface OpenApiDocument {
  openapi: string;
  servers?: { url: string; description?: string }[];
  security?: Record<string, string[]>[];
  paths: Record<string, Record<string, Operation | undefined> | undefined>;
  components?: { securitySchemes?: Record<string, Record<string, unknown>>; schemas?: Record<string, unknown> };
}

export async function fetchDocument(app: FastifyInstance, url = '/openapi.json'): Promise<OpenApiDocument> {
  const response = await app.inject({ url });
  if (response.statusCode !== 200) throw new Error(`GET ${url} answered ${response.statusCode}: ${response.body}`);
  return int64Json.parse(response.body) as OpenApiDocument;
}

/** A copy with every `$ref` replaced by what it points to (the input is left as it was). */
export async function resolveRefs(document: OpenApiDocument): Promise<OpenApiDocument> {
  const resolved: unknown = await dereference(structuredClone(document) as Parameters<typeof dereference>[0]);
  return resolved as OpenApiDocument;
}

export function operationOf(document: OpenApiDocument, path: string, method: string): Operation {
  const operation = document.paths[path]?.[method];
  if (!operation) throw new Error(`the document has no ${method.toUpperCase()} ${path}`);
  return operation;
}

/** What a schema says about names, types, formats and requiredness, with allOf merged in. */
export interface Shape {
  type?: string;
  format?: string;
  properties?: Record<string, Shape>;
  required?: string[];
}

export function shapeOf(schema: SchemaObject | undefined): Shape {
  if (!schema) throw new Error('missing schema');
  if (schema.$ref) throw new Error(`unresolved $ref ${schema.$ref}: resolve the document first`);
  const parts = [schema, ...(schema.allOf ?? []).map(shapeOf)];
  const shape: Shape = {};
  for (const part of parts) {
    if (part.type !== undefined) shape.type = part.type;
    if (part.format !== undefined) shape.format = part.format;
    for (const [name, property] of Object.entries(part.properties ?? {})) {
      shape.properties = { ...shape.properties, [name]: shapeOf(property) };
    }
    if (part.required) shape.required = [...new Set([...(shape.required ?? []), ...part.required])].sort();
  }
  return shape;
}

export function jsonSchemaOf(media: Record<string, MediaType> | undefined): SchemaObject | undefined {
  return media?.['application/json']?.schema;
}
