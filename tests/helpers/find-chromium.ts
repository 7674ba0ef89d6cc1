// Which Chromium the browser tests drive, and with which flags. CHROMIUM_PATH picks one; else Debian's
// /usr/bin/chromium when installed; else the one inside the @sparticuz/chromium dev dependency, so that
// `npm install && npm test` needs neither root nor a browser on the machine.
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { unpackBundledChromium } from './bundled-chromium.js';

export const DEBIAN_CHROMIUM = '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  // Tests may run as root, where Chromium's sandbox refuses to start.
  '--no-sandbox',
  '--disable-gpu',
  // Containers often give /dev/shm only 64 MB, too little for a renderer.
  '--disable-dev-shm-usage',
  // The network may be closed: no background traffic to wait for or to fail.
  '--disable-quic',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-domain-reliability',
  '--disable-sync',
  '--no-pings',
];

export interface ChromiumChoice {
  readonly executablePath: string;
  /** Where it came from, for messages. */
  readonly source: string;
  /** The environment to start it in. */
  readonly env: Record<string, string | undefined>;
}

export async function findChromium(env: Record<string, string | undefined> = process.env): Promise<ChromiumChoice> {
  const chosen = env.CHROMIUM_PATH;
  if (chosen) {
    if (!(await isExecutableFile(chosen))) {
      throw new Error(
        `CHROMIUM_PATH is ${chosen}, but that is not an executable file. Point it at a Chromium or Chrome ` +
          `binary, or unset it to use ${DEBIAN_CHROMIUM} if installed, else the Chromium from @sparticuz/chromium.`,
      );
    }
    return { executablePath: chosen, source: 'CHROMIUM_PATH', env };
  }
  if (await isExecutableFile(DEBIAN_CHROMIUM)) {
    return { executablePath: DEBIAN_CHROMIUM, source: "Debian's chromium package", env };
  }
  const bundled = await unpackBundledChromium();
  const libraryPath = [bundled.libraryDir, env.LD_LIBRARY_PATH].filter(Boolean).join(':');
  return {
    executablePath: bundled.executablePath,
    source: `@sparticuz/chromium ${bundled.version}`,
    env: { ...env, LD_LIBRARY_PATH: libraryPath },
  };
}

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
