// The Chromium shipped brotli-compressed inside the @sparticuz/chromium dev dependency, unpacked at run
// time (npm runs no install scripts of dependencies) into node_modules/.cache, once per version.
// The package's own executablePath() unpacks to a shared /tmp/chromium and reuses any file found there,
// even one cut short by an interrupted run; here each run unpacks into its own folder and renames it into
// place, so the folder, once it exists, is complete.
import { execFile } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { createBrotliDecompress } from 'node:zlib';

export interface BundledChromium {
  readonly version: string;
  readonly executablePath: string;
  /** NSS, NSPR and expat as this build expects them: all it needs beyond glibc, so no apt package is. */
  readonly libraryDir: string;
}

const PACKAGE = '@sparticuz/chromium';
const PARTIAL = '.partial-';

/** Unpacks into `cacheRoot` (node_modules/.cache by default) unless that version is already there. */
export async function unpackBundledChromium(cacheRoot?: string): Promise<BundledChromium> {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`The Chromium in ${PACKAGE} runs on Linux x64 only; set CHROMIUM_PATH to a Chromium or Chrome.`);
  }
  // The package exports no package.json; its entry point sits two folders below the package root.
  const packageDir = join(dirname(createRequire(import.meta.url).resolve(PACKAGE)), '..', '..');
  const { version } = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as { version: string };
  const root = cacheRoot ?? join(packageDir, '..', '..', '.cache');
  const target = join(root, `sparticuz-chromium-${version}`);
  const unpacked = { version, executablePath: join(target, 'chromium'), libraryDir: join(target, 'lib') };
  if (existsSync(target)) return unpacked;

  await mkdir(root, { recursive: true });
  await removeAbandonedPartials(root);
  const staging = `${target}${PARTIAL}${process.pid}-${Math.random().toString(36).slice(2)}`;
  await mkdir(staging);
  try {
    const bin = join(packageDir, 'bin');
    await Promise.all([
      pipeline(
        createReadStream(join(bin, 'chromium.br')),
        createBrotliDecompress(),
        createWriteStream(join(staging, 'chromium'), { mode: 0o755 }),
      ),
      untarBrotli(join(bin, 'al2023.tar.br'), staging),
    ]);
    await rename(staging, target);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    // Another run unpacked the same version first (the rename found the folder there): use its copy.
    if (!existsSync(target)) throw error;
  }
  return unpacked;
}

async function untarBrotli(archive: string, into: string): Promise<void> {
  const tarball = join(into, 'unpacking.tar');
  await pipeline(createReadStream(archive), createBrotliDecompress(), createWriteStream(tarball));
  await promisify(execFile)('tar', ['-xf', tarball, '-C', into]);
  await rm(tarball);
}

/** Partial folders of runs that were killed (their process is gone): each holds ~200 MB. */
async function removeAbandonedPartials(root: string): Promise<void> {
  for (const name of await readdir(root)) {
    const pid = Number(/\.partial-(\d+)-/.exec(name)?.[1]);
    if (pid && !isRunning(pid)) await rm(join(root, name), { recursive: true, force: true });
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
