// mongod's `failCommand` fail point, the one driver tests (MongoDB's unified spec tests among them)
// use to make the next command(s) fail with a given error code or a dropped connection. Like mongod,
// it exists only when the server runs with `--setParameter enableTestCommands=1`.
import { CommandError, notImplemented } from './errors.js';
import { isDoc, numberOption, type Doc } from './values.js';

/** What failCommand does to a command it catches. */
export type InjectedFailure = { kind: 'error'; code: number } | { kind: 'closeConnection' };

interface Armed {
  commands: ReadonlySet<string>;
  failure: InjectedFailure;
  /** Commands still to fail (Infinity for alwaysOn). */
  remaining: number;
  /** Matching commands to let through before failing (mode `{ skip: n }`). */
  skip: number;
}

const SUPPORTED_DATA = new Set(['failCommands', 'errorCode', 'closeConnection', 'failInternalCommands']);

function parseMode(mode: unknown): { remaining: number; skip: number } | undefined {
  if (mode === 'off') return undefined;
  if (mode === 'alwaysOn') return { remaining: Number.POSITIVE_INFINITY, skip: 0 };
  if (isDoc(mode)) {
    const times = numberOption(mode.times);
    if (times !== undefined && Object.keys(mode).length === 1) return times > 0 ? { remaining: times, skip: 0 } : undefined;
    const skip = numberOption(mode.skip);
    if (skip !== undefined && Object.keys(mode).length === 1) return { remaining: Number.POSITIVE_INFINITY, skip };
  }
  throw notImplemented(`the fail point mode ${JSON.stringify(mode)}`);
}

function parseFailure(data: Doc): InjectedFailure {
  const unsupported = Object.keys(data).find((field) => !SUPPORTED_DATA.has(field));
  if (unsupported !== undefined) throw notImplemented(`failCommand's '${unsupported}' setting`);
  if (data.closeConnection === true) return { kind: 'closeConnection' };
  const code = numberOption(data.errorCode);
  if (code === undefined) throw new CommandError('BadValue', "failCommand needs 'errorCode' or 'closeConnection: true'");
  return { kind: 'error', code };
}

export class FailPoints {
  private armed: Armed | undefined;
  private entered = 0;

  /** Applies a configureFailPoint command; returns how often the fail point fired before. */
  configure(command: Doc): number {
    const name = command.configureFailPoint;
    if (name !== 'failCommand') throw notImplemented(`the ${String(name)} fail point (only failCommand)`);
    const previous = this.entered;
    const mode = parseMode(command.mode);
    if (!mode) {
      this.armed = undefined;
      return previous;
    }
    const data = isDoc(command.data) ? command.data : {};
    const commands = Array.isArray(data.failCommands) ? data.failCommands.filter((item): item is string => typeof item === 'string') : [];
    if (commands.length === 0) throw new CommandError('BadValue', "failCommand needs a non-empty 'failCommands' array");
    this.armed = { commands: new Set(commands), failure: parseFailure(data), ...mode };
    this.entered = 0;
    return previous;
  }

  /** The failure to inject into this command, if the fail point is armed for it (consumes one use). */
  take(commandName: string): InjectedFailure | undefined {
    const armed = this.armed;
    if (!armed?.commands.has(commandName)) return undefined;
    if (armed.skip > 0) {
      armed.skip -= 1;
      return undefined;
    }
    armed.remaining -= 1;
    if (armed.remaining <= 0) this.armed = undefined;
    this.entered += 1;
    return armed.failure;
  }
}
