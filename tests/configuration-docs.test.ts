// docs/configuration.md against what the service reads: every variable of the configuration's schema is listed
// on the page, every variable the page lists for the service is read, and so is every variable read from the
// environment by the start script; nothing else in server/ reads the environment.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '../server/config.js';
import { documentText } from './helpers/readme.js';
import { PROJECT_ROOT } from './helpers/processes.js';

const PAGE = 'docs/configuration.md';

/** The names the page writes as code: `PORT`, `MONGOMS_*` (as the prefix `MONGOMS_`). */
function listedOn(text: string): Set<string> {
  return new Set([...text.matchAll(/`([A-Z][A-Z0-9_]*)\*?`/g)].map(([, name = '']) => name));
}

/** The first column of the page's table of the service's variables. */
function serviceTableNames(): string[] {
  const page = documentText(PAGE);
  const section = page.slice(page.indexOf('## The service'), page.indexOf('\n## ', page.indexOf('## The service') + 1));
  return section.split('\n').flatMap((line) => (line.startsWith('| `') ? [...listedOn(line.split(' | ')[0] ?? '')] : []));
}

/** `process.env.NAME` read in the files of these folders (npm's own `npm_*` aside). */
function readFromProcessEnv(paths: string[]): string[] {
  const files = paths.flatMap((path) =>
    path.endsWith('/')
      ? readdirSync(join(PROJECT_ROOT, path), { recursive: true, encoding: 'utf8' })
          .filter((file) => file.endsWith('.ts'))
          .map((file) => join(path, file))
      : [path],
  );
  const names = files.flatMap((file) =>
    [...readFileSync(join(PROJECT_ROOT, file), 'utf8').matchAll(/process\.env\.([A-Za-z_][A-Za-z0-9_]*)/g)].map(([, name = '']) => name),
  );
  return [...new Set(names)].filter((name) => !name.startsWith('npm_'));
}

describe(PAGE, () => {
  it('lists every variable the configuration reads', () => {
    const listed = listedOn(documentText(PAGE));
    expect(CONFIG_VARIABLES.length).toBeGreaterThan(30);
    expect(CONFIG_VARIABLES.filter((name) => !listed.has(name))).toEqual([]);
  });

  it('lists for the service only variables the configuration reads', () => {
    const names = serviceTableNames();
    expect(names.length).toBeGreaterThan(30);
    expect(names.filter((name) => !(CONFIG_VARIABLES as string[]).includes(name))).toEqual([]);
  });

  it('finds no variable read from the environment outside the configuration, and lists what the start script reads', () => {
    const listed = listedOn(documentText(PAGE));
    expect(readFromProcessEnv(['server/'])).toEqual([]);
    expect(readFromProcessEnv(['tools/start.js']).filter((name) => !listed.has(name))).toEqual([]);
  });
});
