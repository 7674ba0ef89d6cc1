// Aggregation pipelines over an in-memory array of documents: the everyday stages ($match,
// $project, $group, $sort, $unwind, $lookup...) and $group's accumulators.
import { Double, Int32, Long } from 'bson';
import { CommandError, notImplemented } from '../errors.js';
import { cloneValue, isDoc, isNumeric, numberOption, type Doc, type NumericValue } from '../values.js';
import { canonicalKey, compareValues } from './compare.js';
import { evaluate } from './expression.js';
import { compileFilter } from './match.js';
import { addNumbers, toDouble } from './numbers.js';
import { getPath, setPath } from './path.js';
import { addFields, project } from './project.js';
import { sortDocuments } from './sort.js';

/** mongod's stages the emulator lacks: refused by name rather than called unrecognized. */
const UNIMPLEMENTED_STAGES = new Set([
  '$out',
  '$merge',
  '$facet',
  '$bucket',
  '$bucketAuto',
  '$sample',
  '$graphLookup',
  '$unionWith',
  '$sortByCount',
  '$densify',
  '$fill',
  '$setWindowFields',
  '$geoNear',
  '$redact',
  '$documents',
  '$changeStream',
  '$indexStats',
  '$collStats',
  '$currentOp',
  '$listSessions',
  '$planCacheStats',
  '$search',
  '$searchMeta',
  '$vectorSearch',
  '$listSearchIndexes',
]);

/** Reads another collection of the same database (for $lookup). */
export type CollectionReader = (name: string) => readonly Doc[];

interface Accumulator {
  add(value: unknown): void;
  result(): unknown;
}

function accumulator(operator: string): Accumulator {
  switch (operator) {
    case '$sum': {
      let total: NumericValue = new Int32(0);
      return {
        add: (value) => {
          if (isNumeric(value)) total = addNumbers(total, value);
        },
        result: () => total,
      };
    }
    case '$avg': {
      let total: NumericValue = new Int32(0);
      let count = 0;
      return {
        add: (value) => {
          if (isNumeric(value)) {
            total = addNumbers(total, value);
            count += 1;
          }
        },
        result: () => (count === 0 ? null : new Double(toDouble(total) / count)),
      };
    }
    case '$min':
    case '$max': {
      let best: unknown = null;
      const sign = operator === '$min' ? -1 : 1;
      return {
        add: (value) => {
          if (value !== null && value !== undefined && (best === null || compareValues(value, best) * sign > 0)) best = value;
        },
        result: () => best,
      };
    }
    case '$first': {
      let first: unknown;
      let seen = false;
      return {
        add: (value) => {
          if (!seen) {
            first = value;
            seen = true;
          }
        },
        result: () => first ?? null,
      };
    }
    case '$last': {
      let last: unknown;
      return {
        add: (value) => {
          last = value;
        },
        result: () => last ?? null,
      };
    }
    case '$push': {
      const items: unknown[] = [];
      return {
        add: (value) => {
          if (value !== undefined) items.push(value);
        },
        result: () => items,
      };
    }
    case '$addToSet': {
      const items = new Map<string, unknown>();
      return {
        add: (value) => {
          if (value !== undefined) items.set(canonicalKey(value), value);
        },
        result: () => [...items.values()],
      };
    }
    case '$count': {
      let count = 0;
      return {
        add: () => {
          count += 1;
        },
        result: () => new Int32(count),
      };
    }
    default:
      throw CommandError.location(15952, `unknown group operator '${operator}'`);
  }
}

function group(docs: readonly Doc[], spec: Doc): Doc[] {
  if (!('_id' in spec)) throw CommandError.location(15955, 'a group specification must include an _id');
  const fields = Object.entries(spec)
    .filter(([name]) => name !== '_id')
    .map(([name, definition]) => {
      const [operator, expression] = isDoc(definition) ? (Object.entries(definition)[0] ?? ['', undefined]) : ['', undefined];
      if (!operator.startsWith('$')) throw CommandError.location(40234, `The field '${name}' must be an accumulator object`);
      return { name, operator, expression };
    });
  const groups = new Map<string, { id: unknown; accumulators: Accumulator[] }>();
  for (const doc of docs) {
    const evaluated = evaluate(spec._id, doc);
    const id = evaluated === undefined ? null : evaluated;
    const key = canonicalKey(id);
    let entry = groups.get(key);
    if (!entry) {
      entry = { id, accumulators: fields.map(({ operator }) => accumulator(operator)) };
      groups.set(key, entry);
    }
    fields.forEach(({ expression }, i) => entry.accumulators[i]?.add(evaluate(expression, doc)));
  }
  return [...groups.values()].map(({ id, accumulators }) => {
    const out: Doc = { _id: id };
    fields.forEach(({ name }, i) => (out[name] = accumulators[i]?.result()));
    return out;
  });
}

function unwind(docs: readonly Doc[], spec: unknown): Doc[] {
  const options = typeof spec === 'string' ? { path: spec } : isDoc(spec) ? spec : {};
  if (typeof options.path !== 'string' || !options.path.startsWith('$')) {
    throw CommandError.location(28818, "path option to $unwind stage should be prefixed with a '$'");
  }
  const path = options.path.slice(1);
  const indexField = typeof options.includeArrayIndex === 'string' ? options.includeArrayIndex : undefined;
  const preserve = options.preserveNullAndEmptyArrays === true;
  const out: Doc[] = [];
  for (const doc of docs) {
    const value = getPath(doc, path);
    if (Array.isArray(value) && value.length > 0) {
      value.forEach((element: unknown, index) => {
        const copy = cloneValue(doc);
        setPath(copy, path, element);
        if (indexField) setPath(copy, indexField, Long.fromInt(index));
        out.push(copy);
      });
    } else if (value !== undefined && value !== null && !Array.isArray(value)) {
      const copy = cloneValue(doc);
      if (indexField) setPath(copy, indexField, null);
      out.push(copy);
    } else if (preserve) {
      const copy = cloneValue(doc);
      if (indexField) setPath(copy, indexField, null);
      out.push(copy);
    }
  }
  return out;
}

function lookup(docs: readonly Doc[], spec: unknown, readCollection: CollectionReader): Doc[] {
  if (
    !isDoc(spec) ||
    typeof spec.from !== 'string' ||
    typeof spec.localField !== 'string' ||
    typeof spec.foreignField !== 'string' ||
    typeof spec.as !== 'string'
  ) {
    throw notImplemented('$lookup with a pipeline or let (only its from/localField/foreignField/as form)');
  }
  const { localField, foreignField, as } = spec;
  const foreign = readCollection(spec.from);
  return docs.map((doc) => {
    const local = getPath(doc, localField);
    const wanted = (Array.isArray(local) ? local : [local ?? null]).map((value: unknown) => canonicalKey(value));
    const matches = foreign.filter((other) => {
      const value = getPath(other, foreignField);
      const values = Array.isArray(value) ? value : [value ?? null];
      return values.some((item: unknown) => wanted.includes(canonicalKey(item)));
    });
    const copy = cloneValue(doc);
    setPath(copy, as, matches);
    return copy;
  });
}

function requireDoc(stage: string, spec: unknown): Doc {
  if (!isDoc(spec)) throw CommandError.location(15, `${stage} specification must be an object`);
  return spec;
}

function count(value: unknown, stage: string): number {
  const n = numberOption(value);
  if (n === undefined || n < 0) throw CommandError.location(15956, `invalid argument to ${stage} stage`);
  return n;
}

function runStage(docs: Doc[], name: string, spec: unknown, readCollection: CollectionReader): Doc[] {
  switch (name) {
    case '$match': {
      const predicate = compileFilter(requireDoc(name, spec));
      return docs.filter(predicate);
    }
    case '$project':
      return docs.map((doc) => project(doc, requireDoc(name, spec)));
    case '$addFields':
    case '$set':
      return docs.map((doc) => addFields(doc, requireDoc(name, spec)));
    case '$unset': {
      const fields = Array.isArray(spec) ? spec : [spec];
      const exclusion = Object.fromEntries(fields.map((field: unknown) => [String(field), 0]));
      return docs.map((doc) => project(doc, exclusion));
    }
    case '$replaceRoot':
    case '$replaceWith': {
      const expression = name === '$replaceRoot' ? requireDoc(name, spec).newRoot : spec;
      return docs.map((doc) => {
        const root = evaluate(expression, doc);
        if (!isDoc(root)) throw CommandError.location(40228, "'newRoot' expression must evaluate to an object");
        return root;
      });
    }
    case '$sort':
      return sortDocuments(docs, requireDoc(name, spec));
    case '$skip':
      return docs.slice(count(spec, name));
    case '$limit':
      return docs.slice(0, count(spec, name));
    case '$group':
      return group(docs, requireDoc(name, spec));
    case '$count':
      if (typeof spec !== 'string' || spec === '') throw CommandError.location(40156, 'the count field must be a non-empty string');
      return docs.length === 0 ? [] : [{ [spec]: new Int32(docs.length) }];
    case '$unwind':
      return unwind(docs, spec);
    case '$lookup':
      return lookup(docs, spec, readCollection);
    default:
      if (UNIMPLEMENTED_STAGES.has(name)) throw notImplemented(`the ${name} aggregation stage`);
      throw CommandError.location(40324, `Unrecognized pipeline stage name: '${name}'`);
  }
}

export function runPipeline(docs: readonly Doc[], pipeline: readonly unknown[], readCollection: CollectionReader): Doc[] {
  let current = [...docs];
  for (const stage of pipeline) {
    const entries = isDoc(stage) ? Object.entries(stage) : [];
    const [entry] = entries;
    if (!entry || entries.length !== 1)
      throw CommandError.location(40323, 'A pipeline stage specification object must contain exactly one field.');
    current = runStage(current, entry[0], entry[1], readCollection);
  }
  return current;
}
