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

/** The HTTP status follows from the code, alike for REST and /trpc; an error not listed is unexpected (500, logged). */
const DOMAIN_ERRORS: readonly (readonly [new (...args: never[]) => Error, (error: never) => Code])[] = [
  [PlantConflictError, () => 'CONFLICT'],
  [PlantNotFoundError, () => 'NOT_FOUND'],
  [PlantPreconditionFailedError, () => 'PRECONDITION_FAILED'],
  [MalformedConditionError, () => 'BAD_REQUEST'],
  [StoreUnavailableError, () => 'SERVICE_UNAVAILABLE'],
  [ChangeQueueFullError, () => 'SERVICE_UNAVAILABLE'],
  [AuthError, (error: AuthError) => AUTH_CODES[error.refusal.status]],
];

const AUTH_CODES = {
  missing: 'UNAUTHORIZED',
  invalid: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  unavailable: 'SERVICE_UNAVAILABLE',
} as const satisfies Record<AuthError['refusal']['status'], Code>;

export function fromDomainError(error: unknown): TRPCError | undefined {
  for (const [kind, codeOf] of DOMAIN_ERRORS) {
    if (error instanceof kind) return new TRPCError({ code: codeOf(error as never), message: error.message, cause: error });
  }
  return undefined;
}
