import { describe, expect, it } from 'vitest';
import { CREATE, DELETE, LIST_BY_TAG, OPERATIONS, UPDATE, type Operation } from './contenders.js';
import { cpuWindows, processCounts, windowTurns } from './cpu-windows.js';

const labelled = (operation: Operation) => cpuWindows(operation.contenders).map(([first, second]) => `${first.label} | ${second.label}`);
const BASELINE = 'baseline: plain Fastify route, same app';

describe('cpuWindows', () => {
  it('puts every contender beside the baseline, and each route beside every peer', () => {
    const windows = labelled(CREATE);
    for (const { label } of CREATE.contenders.slice(1)) expect(windows).toContain(`${label} | ${BASELINE}`);
    const peers = CREATE.contenders.filter((contender) => contender.peer === true).map((peer) => peer.label);
    expect(peers).toHaveLength(3);
    for (const route of ['POST /plants (trpc-to-openapi)', '/trpc/createPlant (tRPC)'])
      for (const peer of peers) expect(windows).toContain(`${route} | ${peer}`);
    expect(windows).toHaveLength(CREATE.contenders.length - 1 + 2 * peers.length);
  });

  it('puts a route judged against a reference beside that reference, not beside the peers', () => {
    const trpc = labelled(DELETE).filter((window) => window.startsWith('/trpc/deletePlant (tRPC) |'));
    expect(trpc).toEqual([
      `/trpc/deletePlant (tRPC) | ${BASELINE}`,
      "/trpc/deletePlant (tRPC) | reference: the baseline in tRPC's wire shape (JSON body in, JSON answer out)",
    ]);
  });

  it('puts an update beside the create it may cost no more than', () => {
    expect(labelled(UPDATE)).toContain(
      'PATCH /plants/{id} (trpc-to-openapi) | reference: POST /plants (trpc-to-openapi), a create on the same store',
    );
    expect(labelled(UPDATE)).toContain('/trpc/updatePlant (tRPC) | reference: /trpc/createPlant (tRPC), a create on the same store');
  });

  it("puts the baseline's own create beside the baseline, which the baseline's update is scaled by", () => {
    expect(labelled(UPDATE)).toContain(`reference: the baseline's create on the same store | ${BASELINE}`);
  });

  it('gives a route with no peer and no reference only the baseline', () => {
    expect(labelled(LIST_BY_TAG)).toHaveLength(LIST_BY_TAG.contenders.length - 1);
  });
});

describe('processCounts', () => {
  it('gives two children to a server whose routes share a window, however few the plan asks for', () => {
    const counts = processCounts([UPDATE], 1);
    // The service's update shares a window with its create; the baseline's with its own create.
    expect(counts.get('service')).toBe(2);
    expect(counts.get('baseline')).toBe(2);
    expect(counts.get('bare')).toBeUndefined();
  });

  it("gives every other server the plan's number", () => {
    const counts = processCounts(OPERATIONS, 1);
    expect(counts.get('peer-fastify-zod')).toBe(1);
    expect(counts.get('bare')).toBe(1);
    expect(processCounts(OPERATIONS, 3).get('peer-fastify-zod')).toBe(3);
    expect(processCounts(OPERATIONS, 3).get('service')).toBe(3);
  });
});

describe('windowTurns', () => {
  const windowOf = (operation: Operation, first: string, second: string) => {
    const window = cpuWindows(operation.contenders).find(([a, b]) => a.label.startsWith(first) && b.label.startsWith(second));
    if (!window) throw new Error(`no window ${first} | ${second}`);
    return window;
  };

  it('runs two routes of one server in different children, which swap each round', () => {
    const window = windowOf(UPDATE, 'PATCH /plants/{id}', 'reference: POST /plants');
    const children = 2;
    for (const round of [0, 1, 2, 3]) {
      const [first, second] = windowTurns(window, round).map((turn) => turn % children);
      expect(first).not.toBe(second);
      expect(first).toBe(round % children);
    }
  });

  it("runs contenders of two servers in each server's child of the round", () => {
    const window = windowOf(CREATE, 'POST /plants', 'peer: Fastify + fastify-type-provider-zod');
    expect(windowTurns(window, 3)).toEqual([3, 3]);
  });
});
