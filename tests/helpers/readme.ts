// The code of the README and the pages under docs/, read from the files themselves, so a test that runs
// it fails when the documents drift.
import { readFileSync } from 'node:fs';

const PROJECT_ROOT = new URL('../../', import.meta.url);

/** A document of the project by its path from the root: `README.md`, `docs/clients.md`. */
export function documentText(path: string): string {
  return readFileSync(new URL(path, PROJECT_ROOT), 'utf8');
}

export function readmeText(): string {
  return documentText('README.md');
}

/** The code blocks of a document fenced with `language` (```ts, ```typescript, ```sh), in order. */
export function documentBlocks(path: string, language: string): string[] {
  const fence = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g');
  return [...documentText(path).matchAll(fence)].map((match) => match[1] ?? '');
}

/** What a snippet says it prints: the comments after its console.log calls, in order. */
export function documentedOutput(snippet: string): string[] {
  return [...snippet.matchAll(/console\.log\(.*\);\s*\/\/ (.*)$/gm)].map((match) => match[1] ?? '');
}
