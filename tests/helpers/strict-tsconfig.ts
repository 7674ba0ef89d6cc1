import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A tsconfig.json for an app of a test's own that compiles as strictly as a user's would: ES modules, Node's resolution. */
export function writeStrictTsconfig(dir: string, include: string[], compilerOptions: Record<string, unknown> = {}): Promise<void> {
  const base = { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, types: ['node'] };
  return writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { ...base, ...compilerOptions }, include }));
}
