// `npm start`: runs the built service in this very process, so the signals npm passes on reach it,
// after building only when dist/ is missing or older than the sources (npm install builds it too).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL, URL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Each build output, and what it is built from (relative to the project root). */
const BUILDS = [
  {
    output: 'dist/server/main.js',
    sources: [
      'server',
      'routers',
      'schemas',
      'client',
      'index.ts',
      'tsconfig.json',
      'tsconfig.build.json',
      'tools/bundle-server.js',
      'packages/fast-path/dist',
      'package-lock.json',
    ],
  },
  { output: 'tools/mongod-emulator/dist/main.js', sources: ['tools/mongod-emulator/src', 'tools/mongod-emulator/tsconfig.build.json'] },
  { output: 'packages/fast-path/dist/index.js', sources: ['packages/fast-path/src', 'packages/fast-path/tsconfig.build.json'] },
];

/** The latest modification time of a file or of any file under a folder; 0 when it does not exist. */
function newestChange(path) {
  if (!existsSync(path)) return 0;
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newestChange(join(path, name))));
}

function isStale({ output, sources }) {
  const sourcesChanged = Math.max(...sources.map((source) => newestChange(join(root, source))));
  return sourcesChanged > 0 && sourcesChanged > newestChange(join(root, output));
}

/** `npm run build` in a process group of its own, so that a signal stops all of it (npm, sh, tsc). */
function build() {
  const npm = process.env.npm_execpath;
  const child = npm
    ? spawn(process.execPath, [npm, 'run', 'build'], { cwd: root, stdio: 'inherit', detached: true })
    : spawn('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', detached: true, shell: process.platform === 'win32' });
  let stoppedBy;
  const forward = (signal) => {
    stoppedBy = signal;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // Already gone.
    }
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  return new Promise((resolve) => {
    child.on('error', (error) => {
      process.stderr.write(`npm run build could not be started: ${error.message}\n`);
      resolve({ code: 1, stoppedBy });
    });
    child.on('exit', (code) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve({ code, stoppedBy });
    });
  });
}

if (BUILDS.some(isStale)) {
  process.stderr.write('dist/ is missing or older than the sources: building it first (npm run build)\n');
  const { code, stoppedBy } = await build();
  if (stoppedBy) process.exit(128 + constants.signals[stoppedBy]);
  if (code !== 0) process.exit(code ?? 1);
}
process.setSourceMapsEnabled(true);
await import(pathToFileURL(join(root, 'dist', 'server', 'main.js')).href);
