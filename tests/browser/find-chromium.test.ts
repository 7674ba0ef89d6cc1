// Choosing the Chromium for the browser tests: CHROMIUM_PATH is checked before use, and the Chromium of
// @sparticuz/chromium unpacks, even from two runs at once, into one complete binary that starts.
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { unpackBundledChromium } from '../helpers/bundled-chromium.js';
import { findChromium } from '../helpers/find-chromium.js';

const run = promisify(execFile);
const scratch = await mkdtemp(join(tmpdir(), 'find-chromium-'));
afterAll(() => rm(scratch, { recursive: true, force: true }));

describe('CHROMIUM_PATH', () => {
  it('is used as given when it names an executable file', async () => {
    const found = await findChromium({ CHROMIUM_PATH: process.execPath });
    expect(found).toMatchObject({ executablePath: process.execPath, source: 'CHROMIUM_PATH' });
  });

  it('fails, naming it, when nothing is there', async () => {
    const missing = join(scratch, 'no-such-chromium');
    await expect(findChromium({ CHROMIUM_PATH: missing })).rejects.toThrow(
      `CHROMIUM_PATH is ${missing}, but that is not an executable file`,
    );
  });

  it('fails when it names a file that is not executable, or a folder', async () => {
    const plain = join(scratch, 'not-executable');
    await writeFile(plain, '');
    await chmod(plain, 0o644);
    await expect(findChromium({ CHROMIUM_PATH: plain })).rejects.toThrow(`CHROMIUM_PATH is ${plain}, but`);
    await expect(findChromium({ CHROMIUM_PATH: scratch })).rejects.toThrow(`CHROMIUM_PATH is ${scratch}, but`);
  });
});

describe('the Chromium of @sparticuz/chromium', () => {
  it('unpacks once when two runs ask at the same time, into a binary that starts with its own libraries', async () => {
    const cache = join(scratch, 'cache');
    const [first, second] = await Promise.all([unpackBundledChromium(cache), unpackBundledChromium(cache)]);
    expect(second).toEqual(first);
    expect(await readdir(cache)).toEqual([`sparticuz-chromium-${first.version}`]);

    const env = { ...process.env, LD_LIBRARY_PATH: first.libraryDir };
    const { stdout } = await run(first.executablePath, ['--version'], { env });
    expect(stdout).toContain(`Chromium ${first.version.split('.')[0] ?? ''}.`);
    // Every library it links against resolves, the NSS ones to the unpacked copies.
    const { stdout: linked } = await run('ldd', [first.executablePath], { env });
    expect(linked).not.toContain('not found');
    expect(linked).toContain(join(first.libraryDir, 'libnss3.so'));
  }, 60_000);
});
