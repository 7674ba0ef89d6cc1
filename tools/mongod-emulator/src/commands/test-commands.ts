// Commands mongod has only with `--setParameter enableTestCommands=1`: configureFailPoint.
import { Int32 } from 'bson';
import { CommandError } from '../errors.js';
import type { CommandHandler } from './context.js';

const configureFailPoint: CommandHandler = (context) => {
  if (context.db !== 'admin') throw new CommandError('Unauthorized', 'configureFailPoint may only be run against the admin database.');
  return { count: new Int32(context.failPoints.configure(context.command)) };
};

export const testCommands: Record<string, CommandHandler> = { configureFailPoint };
