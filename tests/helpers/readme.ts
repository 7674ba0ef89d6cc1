// The README's code, read from README.md itself, so a test that runs it fails when the docs drift.
import { readFileSync } from 'node:fs';

const README = new URL('../../README.md', import.meta.url);

export function readmeText(): string {
  return readFileSync(README, 'utf8');
}

/** The code blocks fenced with `language` (```ts, ```typescript, ```sh), in order. */
export function readmeBlocks(language: string): string[] {
  const fence = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g');
  return [...readmeText().matchAll(fence)].map((match) => match[1] ?? '');
}

/** What a snippet says it prints: the comments after its console.log calls, in order. */
export function documentedOutput(snippet: string): string[] {
  return [...snippet.matchAll(/console\.log\(.*\);\s*\/\/ (.*)$/gm)].map((match) => match[1] ?? '');
}
