// Wire-protocol details and resilience: the legacy OP_QUERY handshake, OP_MSG document sequences
// and moreToCome, and malformed messages that must close only the offending connection.
import { serialize } from 'bson';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../helpers/emulator-process.js';
import { frame, MORE_TO_COME, OP_MSG, OP_QUERY, OP_REPLY, opMsg, opQuery, WireClient } from './wire-client.js';

let emulator: RunningEmulator;
let client: MongoClient;

beforeAll(async () => {
  emulator = await startEmulator();
  client = await MongoClient.connect(`mongodb://127.0.0.1:${emulator.port}`);
});

afterAll(async () => {
  await client.close();
  await emulator.stop();
});

async function exchange(bytes: Buffer): Promise<WireClient> {
  const wire = await WireClient.open(emulator.port);
  wire.send(bytes);
  return wire;
}

/** A message whose header claims another length than it has. */
function declaredLength(message: Buffer, length: number): Buffer {
  message.writeInt32LE(length, 0);
  return message;
}

describe('wire protocol', () => {
  it('answers a legacy OP_QUERY isMaster with OP_REPLY and no topologyVersion', async () => {
    const wire = await exchange(opQuery(7, 'admin.$cmd', { isMaster: 1, helloOk: true }));
    const reply = await wire.nextReply();
    expect(reply?.opCode).toBe(OP_REPLY);
    expect(reply?.responseTo).toBe(7);
    expect(reply?.doc).toMatchObject({
      ok: 1,
      ismaster: true,
      isWritablePrimary: true,
      helloOk: true,
      maxWireVersion: 25,
      minWireVersion: 0,
    });
    expect(reply?.doc.topologyVersion).toBeUndefined();
    wire.close();
  });

  it('merges kind-1 document sequences into the command', async () => {
    const wire = await exchange(opMsg(8, { insert: 'seq', $db: 'wire' }, { sequences: { documents: [{ a: 1 }, { a: 2 }] } }));
    const reply = await wire.nextReply();
    expect(reply?.opCode).toBe(OP_MSG);
    expect(reply?.doc).toMatchObject({ ok: 1, n: 2 });
    wire.close();
    expect(await client.db('wire').collection('seq').countDocuments()).toBe(2);
  });

  it('does not reply to moreToCome messages', async () => {
    const wire = await exchange(opMsg(9, { insert: 'quiet', documents: [{ a: 1 }], $db: 'wire' }, { flags: MORE_TO_COME }));
    wire.send(opMsg(10, { ping: 1, $db: 'admin' }));
    const reply = await wire.nextReply();
    expect(reply?.responseTo).toBe(10);
    wire.close();
    expect(await client.db('wire').collection('quiet').countDocuments()).toBe(1);
  });

  const malformed: [string, Buffer][] = [
    ['a length below the header size', Buffer.from([4, 0, 0, 0, 1, 0, 0, 0])],
    ['a message over 48 MB', declaredLength(frame(OP_MSG, 1, Buffer.alloc(8)), 48_000_001)],
    ['an unknown opcode', frame(9999, 1, Buffer.alloc(8))],
    [
      'bad BSON',
      frame(OP_MSG, 1, Buffer.concat([Buffer.alloc(4), Buffer.from([0]), Buffer.from([12, 0, 0, 0, 0x10, 0x61, 0, 1, 0, 0, 0, 7])])),
    ],
    [
      'a truncated section',
      frame(OP_MSG, 1, Buffer.concat([Buffer.alloc(4), Buffer.from([0]), serialize({ ping: 1, $db: 'admin' }).subarray(0, 6)])),
    ],
    [
      'a document sequence overrunning the message',
      frame(OP_MSG, 1, Buffer.concat([Buffer.alloc(4), Buffer.from([1, 0xff, 0, 0, 0]), Buffer.from('documents\0')])),
    ],
    ['an OP_QUERY that is not a command', opQuery(1, 'wire.plants', { a: 1 })],
  ];

  it.each(malformed)('closes the connection on %s, logs it, and keeps serving others', async (_label, bytes) => {
    const before = emulator.logLines().filter((line) => line.msg.includes('malformed')).length;
    const wire = await exchange(bytes);
    expect(await wire.closedByServer()).toBe(true);
    expect(emulator.logLines().filter((line) => line.msg.includes('malformed')).length).toBe(before + 1);
    await expect(client.db('admin').command({ ping: 1 })).resolves.toMatchObject({ ok: 1 });
    expect(emulator.child.exitCode).toBeNull();
  });

  it('survives a client that disconnects mid-message', async () => {
    const wire = await WireClient.open(emulator.port);
    wire.send(opMsg(11, { ping: 1, $db: 'admin' }).subarray(0, 10));
    wire.close();
    await expect(client.db('admin').command({ ping: 1 })).resolves.toMatchObject({ ok: 1 });
  });

  it('uses the request opcode for the reply', async () => {
    expect(OP_QUERY).toBe(2004);
    const wire = await exchange(opMsg(12, { hello: 1, $db: 'admin' }));
    expect((await wire.nextReply())?.opCode).toBe(OP_MSG);
    wire.close();
  });
});
