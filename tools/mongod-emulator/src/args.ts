// Command-line parsing for the mongod flags mongodb-memory-server passes. Unknown flags are
// accepted with a warning so that extra mongod options never prevent start-up.

export interface Options {
  port: number;
  bindIps: string[];
  dbpath?: string;
  storageEngine?: string;
  version: boolean;
  /** `--setParameter enableTestCommands=1`, which also gives mongod its test-only commands. */
  testCommands: boolean;
  warnings: string[];
}

const WITH_VALUE = new Set(['--port', '--dbpath', '--storageEngine', '--bind_ip', '--setParameter']);
const FLAGS = new Set(['--noauth', '--version', '--bind_ip_all', '--quiet', '--nounixsocket']);

/** `--setParameter name=value`: only enableTestCommands means something here. */
function setParameter(options: Options, assignment: string): void {
  const [name = '', value = ''] = assignment.split('=', 2);
  if (name === 'enableTestCommands') options.testCommands = value === '1' || value === 'true';
  else options.warnings.push(`ignoring unsupported option --setParameter=${assignment}`);
}

export function parseArgs(argv: readonly string[]): Options {
  const options: Options = { port: 27017, bindIps: ['127.0.0.1'], version: false, testCommands: false, warnings: [] };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    let value = arg.startsWith('--') && eq > 0 ? arg.slice(eq + 1) : undefined;
    if (WITH_VALUE.has(name)) {
      if (value === undefined) {
        value = argv[i + 1];
        i += 1;
      }
      if (value === undefined) throw new Error(`${name} needs a value`);
      if (name === '--port') {
        const port = Number(value);
        if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid --port ${value}`);
        options.port = port;
      } else if (name === '--setParameter') setParameter(options, value);
      else if (name === '--dbpath') options.dbpath = value;
      else if (name === '--storageEngine') options.storageEngine = value;
      else
        options.bindIps = value
          .split(',')
          .map((ip) => ip.trim())
          .filter((ip) => ip !== '');
    } else if (name === '--version') {
      options.version = true;
    } else if (name === '--bind_ip_all') {
      options.bindIps = ['0.0.0.0'];
    } else if (!FLAGS.has(name)) {
      // A value following an unknown option (e.g. `--replSet rs0`) is skipped along with it.
      const next = argv[i + 1];
      if (value === undefined && next !== undefined && !next.startsWith('-')) i += 1;
      options.warnings.push(`ignoring unsupported option ${arg}`);
    }
  }
  return options;
}
