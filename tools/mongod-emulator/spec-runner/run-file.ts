// Runs one unified-format test file: for each test, its requirements, initialData, entities,
// operations (with expectResult / expectError), expectEvents and outcome, as the unified test format
// describes them. A test passes only when every assertion it makes was checked and held; anything
// this runner does not implement, and any feature the server refuses as not implemented, makes the
// test skipped with the reason, never passed.
import { readFileSync } from 'node:fs';
import { EJSON } from 'bson';
import {
  MongoBulkWriteError,
  MongoClient,
  MongoOperationTimeoutError,
  MongoServerError,
  type CommandFailedEvent,
  type CommandStartedEvent,
  type CommandSucceededEvent,
  type Document,
} from 'mongodb';
import { NOT_IMPLEMENTED_PREFIX } from '../src/errors.js';
import { exactlyEqual, firstEntry, isPlainDocument, Matcher, UnsupportedByRunner } from './matching.js';
import { bulkWriteResult, nativeOptions, runEntityOperation, type Entity } from './operations.js';
import { unmetRequirements, type ServerFacts } from './requirements.js';

export type Verdict = { status: 'passed' } | { status: 'failed' | 'skipped'; reason: string };

export interface TestReport {
  description: string;
  verdict: Verdict;
}

export interface RunContext {
  uri: string;
  /** The internal client: initialData, outcome and fail points go through it. */
  internal: MongoClient;
  server: ServerFacts;
}

/** An assertion that did not hold. */
class Failure extends Error {}

/** A test that cannot be judged here (a refused feature, no fail points): skipped with this reason. */
class Skip extends Error {}

const FILE_KEYS = ['description', 'schemaVersion', 'runOnRequirements', 'createEntities', 'initialData', 'tests', '_yamlAnchors'];
const TEST_KEYS = ['description', 'runOnRequirements', 'skipReason', 'operations', 'expectEvents', 'outcome'];
const OPERATION_KEYS = ['name', 'object', 'arguments', 'expectResult', 'expectError', 'saveResultAsEntity', 'ignoreResultAndError'];
const ERROR_KEYS = [
  'isError',
  'isClientError',
  'isTimeoutError',
  'errorContains',
  'errorCode',
  'errorCodeName',
  'errorLabelsContain',
  'errorLabelsOmit',
  'errorResponse',
  'expectResult',
];
const ENTITY_KEYS: Record<string, readonly string[]> = {
  client: ['id', 'uriOptions', 'observeEvents', 'ignoreCommandMonitoringEvents', 'useMultipleMongoses', 'observeSensitiveCommands'],
  database: ['id', 'client', 'databaseName', 'databaseOptions'],
  collection: ['id', 'database', 'collectionName', 'collectionOptions'],
};
const EVENT_TYPES = ['commandStartedEvent', 'commandSucceededEvent', 'commandFailedEvent'];
/** Commands whose monitoring events carry credentials and are redacted, hence never observed. */
const SENSITIVE_COMMANDS = new Set([
  'authenticate',
  'saslStart',
  'saslContinue',
  'getnonce',
  'createUser',
  'updateUser',
  'copydbgetnonce',
  'copydbsaslstart',
  'copydb',
]);

function onlyKnownKeys(what: string, value: Document, known: readonly string[]): void {
  const unknown = Object.keys(value).find((key) => !known.includes(key));
  if (unknown !== undefined) throw new UnsupportedByRunner(`${what} field '${unknown}'`);
}

function asDocuments(value: unknown): Document[] {
  return Array.isArray(value) ? value.filter(isPlainDocument) : [];
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The emulator's refusal of a feature it does not implement (the server's message, or its cause's, says so). */
function refusal(error: unknown): string | undefined {
  const messages: string[] = [];
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    messages.push(current.message);
    if (current instanceof MongoServerError && isPlainDocument(current.errorResponse)) messages.push(String(current.errorResponse.errmsg));
  }
  return messages.find((message) => message.includes(NOT_IMPLEMENTED_PREFIX));
}

/**
 * Tests the Node.js driver itself cannot pass whatever the server does, so they judge nothing here;
 * the driver's own spec suite skips them for the same reasons.
 */
const DRIVER_DEVIATIONS: Record<string, string> = Object.fromEntries(
  ['insertOne', 'insertMany', 'bulkWrite', 'clientBulkWrite'].map((operation) => [
    `inserting _id with type null via ${operation}`,
    'the Node.js driver replaces a null _id with an ObjectId before sending (NODE-6468)',
  ]),
);

interface ObservedEvent {
  type: string;
  commandName: string;
  databaseName: string;
  command?: Document;
  reply?: Document;
}

/** The state of one test: its entities, the events its clients saw and the fail points it set. */
class TestRun {
  readonly entities = new Map<string, unknown>();
  private readonly clients: MongoClient[] = [];
  private readonly events = new Map<string, ObservedEvent[]>();
  private readonly failPoints: { client: MongoClient; name: string }[] = [];
  private readonly matcher = new Matcher(this.entities);

  constructor(private readonly context: RunContext) {}

  private entity(id: unknown): Entity {
    const entity = typeof id === 'string' ? this.entities.get(id) : undefined;
    if (!entity || typeof entity !== 'object' || !('kind' in entity)) throw new Error(`no entity named ${String(id)}`);
    return entity as Entity;
  }

  private clientEntity(id: unknown): MongoClient {
    const entity = this.entity(id);
    if (entity.kind !== 'client') throw new Error(`entity ${String(id)} is not a client`);
    return entity.client;
  }

  async createEntities(definitions: Document[]): Promise<void> {
    for (const definition of definitions) {
      const [type, spec] = firstEntry(definition);
      const known = ENTITY_KEYS[type];
      if (!known || !isPlainDocument(spec)) throw new UnsupportedByRunner(`${type} entities`);
      onlyKnownKeys(`${type} entity`, spec, known);
      const id = String(spec.id);
      if (this.entities.has(id)) throw new Error(`duplicate entity ${id}`);
      this.entities.set(id, await this.createEntity(type, spec));
    }
  }

  private async createEntity(type: string, spec: Document): Promise<Entity> {
    if (type === 'database') {
      const client = this.clientEntity(spec.client);
      return { kind: 'database', db: client.db(String(spec.databaseName), nativeOptions(spec.databaseOptions)) };
    }
    if (type === 'collection') {
      const database = this.entity(spec.database);
      if (database.kind !== 'database') throw new Error(`entity ${String(spec.database)} is not a database`);
      return { kind: 'collection', collection: database.db.collection(String(spec.collectionName), nativeOptions(spec.collectionOptions)) };
    }
    return { kind: 'client', client: await this.createClient(spec) };
  }

  private async createClient(spec: Document): Promise<MongoClient> {
    const observe = Array.isArray(spec.observeEvents) ? spec.observeEvents.map(String) : [];
    const unsupported = observe.find((type) => !EVENT_TYPES.includes(type));
    if (unsupported !== undefined) throw new UnsupportedByRunner(`observing ${unsupported}`);
    const ignored = new Set([
      ...(Array.isArray(spec.ignoreCommandMonitoringEvents) ? spec.ignoreCommandMonitoringEvents.map(String) : []),
      'configureFailPoint',
    ]);
    if (spec.observeSensitiveCommands !== true) for (const name of SENSITIVE_COMMANDS) ignored.add(name);
    const client = new MongoClient(this.context.uri, {
      ...nativeOptions(spec.uriOptions),
      monitorCommands: observe.length > 0,
      serverSelectionTimeoutMS: 10_000,
    });
    this.clients.push(client);
    const events: ObservedEvent[] = [];
    this.events.set(String(spec.id), events);
    const record = (
      type: string,
      event: CommandStartedEvent | CommandSucceededEvent | CommandFailedEvent,
      extra: Partial<ObservedEvent>,
    ): void => {
      if (observe.includes(type) && !ignored.has(event.commandName))
        events.push({ type, commandName: event.commandName, databaseName: event.databaseName, ...extra });
    };
    client.on('commandStarted', (event) => {
      record('commandStartedEvent', event, { command: event.command });
    });
    client.on('commandSucceeded', (event) => {
      record('commandSucceededEvent', event, { reply: event.reply as Document });
    });
    client.on('commandFailed', (event) => {
      record('commandFailedEvent', event, {});
    });
    await client.connect();
    return client;
  }

  async runOperation(operation: Document): Promise<void> {
    onlyKnownKeys('operation', operation, OPERATION_KEYS);
    const args = isPlainDocument(operation.arguments) ? operation.arguments : {};
    let result: { value: unknown; rootArray?: boolean } | undefined;
    let error: unknown;
    try {
      result =
        operation.object === 'testRunner'
          ? await this.special(String(operation.name), args)
          : await runEntityOperation(this.entity(operation.object), String(operation.name), args);
    } catch (caught) {
      if (caught instanceof UnsupportedByRunner || caught instanceof Skip) throw caught;
      error = caught;
    }
    const refused = error === undefined ? undefined : refusal(error);
    if (refused !== undefined) throw new Skip(`the server refuses a feature it does not implement: ${refused}`);
    if (operation.ignoreResultAndError === true) return;
    if (isPlainDocument(operation.expectError)) {
      if (error === undefined)
        throw new Failure(`${String(operation.name)}: expected an error, got ${EJSON.stringify({ result: result?.value })}`);
      this.checkError(String(operation.name), operation.expectError, error);
      return;
    }
    if (error !== undefined) throw new Failure(`${String(operation.name)}: unexpected error: ${errorMessage(error)}`);
    if ('expectResult' in operation) {
      const problem = result?.rootArray
        ? this.matcher.matchRootArray(operation.expectResult, result.value)
        : this.matcher.match(operation.expectResult, result?.value);
      if (problem) throw new Failure(`${String(operation.name)}: ${problem}`);
    }
    if (typeof operation.saveResultAsEntity === 'string') this.entities.set(operation.saveResultAsEntity, result?.value);
  }

  private checkError(name: string, expected: Document, error: unknown): void {
    onlyKnownKeys('expectError', expected, ERROR_KEYS);
    const server = error instanceof MongoServerError ? error : undefined;
    const fail = (what: string): never => {
      throw new Failure(`${name}: ${what} (error: ${errorMessage(error)})`);
    };
    if (typeof expected.isClientError === 'boolean' && expected.isClientError !== (server === undefined))
      fail(`expected a ${expected.isClientError ? 'client' : 'server'} error`);
    if (typeof expected.isTimeoutError === 'boolean' && expected.isTimeoutError !== error instanceof MongoOperationTimeoutError)
      fail('timeout error expectation not met');
    if (typeof expected.errorContains === 'string' && !errorMessage(error).toLowerCase().includes(expected.errorContains.toLowerCase()))
      fail(`expected the message to contain "${expected.errorContains}"`);
    if (expected.errorCode !== undefined && this.matcher.match(expected.errorCode, server?.code) !== undefined)
      fail(`expected code ${String(expected.errorCode)}, got ${String(server?.code)}`);
    if (typeof expected.errorCodeName === 'string' && expected.errorCodeName.toLowerCase() !== String(server?.codeName).toLowerCase())
      fail(`expected codeName ${expected.errorCodeName}, got ${String(server?.codeName)}`);
    for (const label of Array.isArray(expected.errorLabelsContain) ? expected.errorLabelsContain.map(String) : []) {
      if (!server?.hasErrorLabel(label)) fail(`expected error label ${label}`);
    }
    for (const label of Array.isArray(expected.errorLabelsOmit) ? expected.errorLabelsOmit.map(String) : []) {
      if (server?.hasErrorLabel(label)) fail(`expected no error label ${label}`);
    }
    if (expected.errorResponse !== undefined) {
      const problem = this.matcher.match(expected.errorResponse, server?.errorResponse);
      if (problem) fail(`errorResponse: ${problem}`);
    }
    if (expected.expectResult !== undefined) {
      if (!(error instanceof MongoBulkWriteError))
        throw new UnsupportedByRunner('expectError.expectResult for errors other than bulk write errors');
      const problem = this.matcher.match(expected.expectResult, bulkWriteResult(error.result));
      if (problem) fail(`result: ${problem}`);
    }
  }

  /** Special test operations (object: testRunner): the failPoint one. */
  private async special(name: string, args: Document): Promise<{ value: unknown }> {
    if (name !== 'failPoint') throw new UnsupportedByRunner(`the testRunner operation ${name}`);
    const client = this.clientEntity(args.client);
    const failPoint = isPlainDocument(args.failPoint) ? args.failPoint : {};
    try {
      await client.db('admin').command(failPoint);
    } catch (error) {
      if (error instanceof MongoServerError && error.code === 59)
        throw new Skip('the server has no configureFailPoint (test commands are not enabled)');
      throw error;
    }
    this.failPoints.push({ client, name: String(failPoint.configureFailPoint) });
    return { value: undefined };
  }

  async disableFailPoints(): Promise<void> {
    for (const { client, name } of this.failPoints.splice(0)) await client.db('admin').command({ configureFailPoint: name, mode: 'off' });
  }

  checkEvents(expectations: Document[]): void {
    for (const expectation of expectations) {
      onlyKnownKeys('expectEvents', expectation, ['client', 'events', 'eventType', 'ignoreExtraEvents']);
      if (expectation.eventType !== undefined && expectation.eventType !== 'command')
        throw new UnsupportedByRunner(`${String(expectation.eventType)} events`);
      const actual = this.events.get(String(expectation.client)) ?? [];
      const expected = asDocuments(expectation.events);
      const extra = actual.length > expected.length && expectation.ignoreExtraEvents !== true;
      if (actual.length < expected.length || extra) {
        throw new Failure(
          `expected ${expected.length} events on ${String(expectation.client)}, saw ${actual.length}: ${actual.map((event) => event.commandName).join(', ')}`,
        );
      }
      expected.forEach((event, index) => {
        this.checkEvent(event, actual[index], index);
      });
    }
  }

  private checkEvent(expected: Document, actual: ObservedEvent | undefined, index: number): void {
    const [type, assertions] = firstEntry(expected);
    if (!EVENT_TYPES.includes(type) || !isPlainDocument(assertions)) throw new UnsupportedByRunner(`expected event ${type}`);
    onlyKnownKeys(type, assertions, ['command', 'reply', 'commandName', 'databaseName']);
    if (actual?.type !== type)
      throw new Failure(`event ${index}: expected ${type}, saw ${actual?.type ?? 'none'} (${actual?.commandName ?? ''})`);
    for (const field of ['commandName', 'databaseName'] as const) {
      if (assertions[field] !== undefined && assertions[field] !== actual[field])
        throw new Failure(`event ${index}: expected ${field} ${String(assertions[field])}, saw ${actual[field]}`);
    }
    for (const field of ['command', 'reply'] as const) {
      if (assertions[field] === undefined) continue;
      const problem = this.matcher.match(assertions[field], actual[field]);
      if (problem) throw new Failure(`event ${index} (${actual.commandName}) ${field}: ${problem}`);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.clients.splice(0).map((client) => client.close()));
  }
}

async function loadInitialData(internal: MongoClient, collections: Document[]): Promise<void> {
  const majority = { writeConcern: { w: 'majority' } } as const;
  for (const data of collections) {
    onlyKnownKeys('initialData', data, ['collectionName', 'databaseName', 'documents', 'createOptions']);
    const db = internal.db(String(data.databaseName));
    const name = String(data.collectionName);
    await db.dropCollection(name, majority).catch(() => false);
    const documents = asDocuments(data.documents);
    if (isPlainDocument(data.createOptions) || documents.length === 0) {
      await db.createCollection(name, { ...majority, ...(isPlainDocument(data.createOptions) ? data.createOptions : {}) });
    }
    if (documents.length > 0) await db.collection(name).insertMany(documents, majority);
  }
}

async function checkOutcome(internal: MongoClient, outcome: Document[]): Promise<void> {
  for (const expected of outcome) {
    const stored = await internal
      .db(String(expected.databaseName))
      .collection(String(expected.collectionName))
      .find({}, { sort: { _id: 1 }, readConcern: { level: 'local' } })
      .toArray();
    const documents = asDocuments(expected.documents);
    if (!exactlyEqual(documents, stored)) {
      throw new Failure(
        `outcome of ${String(expected.collectionName)}: expected ${EJSON.stringify(documents)}, found ${EJSON.stringify(stored)}`,
      );
    }
  }
}

async function runTest(file: Document, test: Document, context: RunContext): Promise<Verdict> {
  try {
    onlyKnownKeys('test', test, TEST_KEYS);
  } catch (error) {
    return { status: 'skipped', reason: `the runner does not implement ${errorMessage(error)}` };
  }
  if (typeof test.skipReason === 'string') return { status: 'skipped', reason: test.skipReason };
  const deviation = DRIVER_DEVIATIONS[String(test.description)];
  if (deviation !== undefined) return { status: 'skipped', reason: deviation };
  const unmet = await unmetRequirements(test.runOnRequirements, context.server);
  if (unmet !== undefined) return { status: 'skipped', reason: unmet };
  const run = new TestRun(context);
  try {
    await loadInitialData(context.internal, asDocuments(file.initialData));
    await run.createEntities(asDocuments(file.createEntities));
    try {
      for (const operation of asDocuments(test.operations)) await run.runOperation(operation);
    } finally {
      await run.disableFailPoints();
    }
    run.checkEvents(asDocuments(test.expectEvents));
    await checkOutcome(context.internal, asDocuments(test.outcome));
    return { status: 'passed' };
  } catch (error) {
    if (error instanceof Skip) return { status: 'skipped', reason: error.message };
    if (error instanceof UnsupportedByRunner) return { status: 'skipped', reason: `the runner does not implement ${error.message}` };
    const refused = refusal(error);
    if (refused !== undefined) return { status: 'skipped', reason: `the server refuses a feature it does not implement: ${refused}` };
    return { status: 'failed', reason: errorMessage(error) };
  } finally {
    await run.close();
  }
}

/** Runs every test of one file; a file the runner cannot read reports one failed test. */
export async function runFile(path: string, context: RunContext): Promise<TestReport[]> {
  const file = EJSON.parse(readFileSync(path, 'utf8'), { relaxed: false }) as Document;
  const tests = asDocuments(file.tests);
  const all = (verdict: Verdict): TestReport[] => tests.map((test) => ({ description: String(test.description), verdict }));
  if (!String(file.schemaVersion).startsWith('1.'))
    return [{ description: '(file)', verdict: { status: 'failed', reason: `unsupported schemaVersion ${String(file.schemaVersion)}` } }];
  try {
    onlyKnownKeys('file', file, FILE_KEYS);
  } catch (error) {
    return all({ status: 'skipped', reason: `the runner does not implement ${errorMessage(error)}` });
  }
  const unmet = await unmetRequirements(file.runOnRequirements, context.server);
  if (unmet !== undefined) return all({ status: 'skipped', reason: unmet });
  const reports: TestReport[] = [];
  for (const test of tests) reports.push({ description: String(test.description), verdict: await runTest(file, test, context) });
  return reports;
}
