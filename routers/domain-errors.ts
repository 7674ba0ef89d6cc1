import { TRPCError } from '@trpc/server';
import { AuthError } from './auth.js';
import { MalformedConditionError } from './entity-tags.js';
import {
  ChangeQueueFullError,
  PlantConflictError,
  PlantNotFoundError,
  PlantPreconditionFailedError,
  StoreUnavailableError,
} from './plant-store.js';

type Code = TRPCError['code'];

/** A kind of error and the code it is answered with; `row` ties the function's parameter to the kind. */
interface DomainError {
  kind: new (...args: never[]) => Error;
  codeOf: (error: Error) => Code;
}

function row<E extends Error>(kind: new (...args: never[]) => E, codeOf: (error: E) => Code): DomainError {
  return { kind, codeOf: (error) => codeOf(error as E) };
}

/** The HTTP status follows from the code, alike for REST and /trpc; an error not listed is unexpected (500, logged). */
const DOMAIN_ERRORS: readonly DomainError[] = [
  row(PlantConflictError, () => 'CONFLICT'),
  row(PlantNotFoundError, () => 'NOT_FOUND'),
  row(PlantPreconditionFailedError, () => 'PRECONDITION_FAILED'),
  row(MalformedConditionError, () => 'BAD_REQUEST'),
  row(StoreUnavailableError, () => 'SERVICE_UNAVAILABLE'),
  row(ChangeQueueFullError, () => 'SERVICE_UNAVAILABLE'),
  row(AuthError, (error) => AUTH_CODES[error.refusal.status]),
];

const AUTH_CODES = {
  missing: 'UNAUTHORIZED',
  invalid: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  unavailable: 'SERVICE_UNAVAILABLE',
} as const satisfies Record<AuthError['refusal']['status'], Code>;

export function fromDomainError(error: unknown): TRPCError | undefined {
  for (const { kind, codeOf } of DOMAIN_ERRORS) {
    if (error instanceof kind) return new TRPCError({ code: codeOf(error), message: error.message, cause: error });
  }
  return undefined;
}
