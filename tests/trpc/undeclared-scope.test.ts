// A protected procedure that declares no scope admits no caller, whatever its token grants: forgetting to declare one
// fails closed, and a caller without a valid token still hears why it was refused.
import { TRPCError } from '@trpc/server';
import { expect, it } from 'vitest';
import type { Context } from '../../routers/context.js';
import type { PlantStore } from '../../routers/plant-store.js';
import { protectedProcedure, router } from '../../routers/trpc.js';

const undeclared = router({ peek: protectedProcedure.query(() => 'seen') });
const context = (auth: Context['auth']): Context => ({ store: {} as PlantStore, auth });

it('refuses every caller of a protected procedure without a scope: an unexpected failure, or the token refusal', async () => {
  const everything = { name: 'ops', scopes: new Set(['plants:read', 'plants:write']) };
  const refused = undeclared.createCaller(context({ status: 'valid', principal: everything })).peek();
  await expect(refused).rejects.toMatchObject({ code: 'INTERNAL_SERVER_ERROR' });
  await expect(refused).rejects.toThrow(TRPCError);
  await expect(undeclared.createCaller(context({ status: 'missing' })).peek()).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
});
