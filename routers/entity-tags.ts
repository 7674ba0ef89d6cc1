import { hash } from 'node:crypto';
import type { Int64 } from '../schemas/int64.js';
import type { Plant } from '../schemas/plant.js';

/**
 * The revision is in the digest, so any change, even one back to an earlier name, changes the tag. The name's length
 * makes the text unambiguous: no other name and tag give the same one.
 */
export function entityTagOf(id: Int64, revision: number, { name, tag }: Plant): string {
  const text = `${id}:${revision}:${name.length}:${name}${tag === undefined ? '' : `:${tag}`}`;
  return `"${hash('sha256', text, 'base64url').slice(0, 22)}"`;
}

export type EntityTagCondition = { any: true } | { any: false; tags: { tag: string; weak: boolean }[] };

// Optional whitespace is spaces and tabs only (RFC 9110 section 5.6.3): a no-break space is obs-text, not a separator.
const LIST_MEMBER = /^[ \t]*(?:(W\/)?("[\x21\x23-\x7e\x80-\xff]*"))?[ \t]*(?:,|$)/;
const ANY = /^[ \t]*\*[ \t]*$/;
const BLANK = /^[ \t]*$/;

/**
 * Reads a header value of RFC 9110's `"*" / #entity-tag`, empty list elements allowed; undefined for one that is neither.
 * A list of no tags is a list all the same: an If-Match of it matches nothing, an If-None-Match of it anything.
 */
export function parseEntityTagCondition(value: string): EntityTagCondition | undefined {
  if (ANY.test(value)) return { any: true };
  const tags: { tag: string; weak: boolean }[] = [];
  let rest = value;
  while (!BLANK.test(rest)) {
    const member = LIST_MEMBER.exec(rest);
    if (!member || member[0] === '') return undefined;
    if (member[2]) tags.push({ tag: member[2], weak: member[1] !== undefined });
    rest = rest.slice(member[0].length);
  }
  return { any: false, tags };
}

/** If-Match compares strongly: a weak tag never matches. */
export function matchesStrongly(condition: EntityTagCondition, entityTag: string): boolean {
  return condition.any || condition.tags.some(({ tag, weak }) => !weak && tag === entityTag);
}

/** If-None-Match compares weakly: `W/` is ignored. */
export function matchesWeakly(condition: EntityTagCondition, entityTag: string): boolean {
  return condition.any || condition.tags.some(({ tag }) => tag === entityTag);
}

export type ConditionHeader = 'If-Match' | 'If-None-Match';

/** What a request requires of the plant's entity tag (RFC 9110, section 13.2.2): If-Match names it, If-None-Match does not. */
export interface Precondition {
  ifMatch?: EntityTagCondition;
  ifNoneMatch?: EntityTagCondition;
  /** Two If-Match lists (a header and a call's input) named tags, none of them in both: a list of none, not sent as one. */
  ifMatchListsDisjoint?: true;
}

/** The conditions a request's headers carry. */
export interface ConditionHeaders {
  ifMatch?: string | undefined;
  /** On a read it asks for 304 while it names the plant's tag; on a change, it refuses the change then (412). */
  ifNoneMatch?: string | undefined;
}

/**
 * Undefined when no condition is given. A call may give If-Match twice (the header and an `ifMatch` input): both must
 * hold. A malformed value is refused, not ignored: a client that meant a condition must not get an unconditional write.
 */
export function preconditionOf(headers: ConditionHeaders | undefined, ifMatchInput?: string): Precondition | undefined {
  const { ifMatch, ifNoneMatch } = headers ?? {};
  if (ifNoneMatch === undefined && ifMatch === undefined && ifMatchInput === undefined) return undefined;
  const conditions = [
    ...(ifMatch === undefined ? [] : [conditionIn('If-Match', ifMatch)]),
    ...(ifMatchInput === undefined ? [] : [conditionIn('ifMatch', ifMatchInput)]),
  ];
  const both = conditions.length > 0 ? conditions.reduce(bothMatching) : undefined;
  return {
    ...(both && { ifMatch: both }),
    ...(both && namesNoTag(both) && !conditions.some(namesNoTag) && { ifMatchListsDisjoint: true }),
    ...(ifNoneMatch !== undefined && { ifNoneMatch: conditionIn('If-None-Match', ifNoneMatch) }),
  };
}

const namesNoTag = (condition: EntityTagCondition): boolean => !condition.any && condition.tags.length === 0;

/** The tags both conditions name, strong only where both name it strongly: `*` adds nothing. */
function bothMatching(first: EntityTagCondition, second: EntityTagCondition): EntityTagCondition {
  if (first.any) return second;
  if (second.any) return first;
  const tags = first.tags.filter(({ tag }) => matchesWeakly(second, tag));
  return { any: false, tags: tags.map(({ tag, weak }) => ({ tag, weak: weak || !matchesStrongly(second, tag) })) };
}

/**
 * A failed condition's header; `weakIfMatch`: If-Match named the plant's tag, but weak (a proxy that compresses weakens
 * tags); `emptyIfMatch`: If-Match named no tag at all (a client that sent the ETag it did not have).
 */
export type FailedCondition = ConditionHeader | 'weakIfMatch' | 'emptyIfMatch';

/** The condition `entityTag` fails, If-Match first; undefined when the precondition holds. */
export function failedCondition(
  { ifMatch, ifNoneMatch, ifMatchListsDisjoint }: Precondition,
  entityTag: string,
): FailedCondition | undefined {
  if (ifMatch && !matchesStrongly(ifMatch, entityTag)) {
    if (matchesWeakly(ifMatch, entityTag)) return 'weakIfMatch';
    return namesNoTag(ifMatch) && !ifMatchListsDisjoint ? 'emptyIfMatch' : 'If-Match';
  }
  if (ifNoneMatch && matchesWeakly(ifNoneMatch, entityTag)) return 'If-None-Match';
  return undefined;
}

/** Where a condition came from: a request header, or a call's `ifMatch` input. */
type ConditionSource = ConditionHeader | 'ifMatch';

function conditionIn(source: ConditionSource, value: string): EntityTagCondition {
  const condition = parseEntityTagCondition(value);
  if (condition === undefined) throw new MalformedConditionError(source);
  return condition;
}

export class MalformedConditionError extends Error {
  override name = 'MalformedConditionError';
  constructor(readonly source: ConditionSource) {
    super(`${source} must be * or a comma-separated list of entity tags, each in double quotes, as ETag gives them`);
  }
}
