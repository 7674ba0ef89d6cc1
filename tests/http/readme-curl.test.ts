// The README's curl session (its first ```sh block under "The API by example"), run as written
// with bash and curl against a live service: each command followed by a `# {…}` or `# […]` line
// must print exactly that.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_TOKEN, type TestApp } from '../helpers/app.js';
import { readmeText } from '../helpers/readme.js';

interface Step {
  command: string;
  /** What the README says it prints, when it says. */
  prints: string | undefined;
}

/** The session's set-up lines (up to the first blank line) and its commands, in order. */
function readmeSession(): { setUp: string[]; steps: Step[] } {
  const readme = readmeText();
  const section = readme.slice(readme.indexOf('## The API by example'));
  const lines = (/```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '').split('\n');
  const blank = lines.indexOf('');
  const steps = lines.slice(blank).flatMap((line, index, rest): Step[] => {
    if (line === '' || line.startsWith('#')) return [];
    const next = rest[index + 1] ?? '';
    return [{ command: line, prints: /^# [[{]/.test(next) ? next.slice(2) : undefined }];
  });
  return { setUp: lines.slice(0, blank), steps };
}

describe("the README's curl session, against a live service", () => {
  const { setUp, steps } = readmeSession();
  let service: TestApp | undefined;
  let url = '';

  beforeAll(async () => {
    service = await startTestApp();
    url = await service.app.listen({ host: '127.0.0.1', port: 0 });
  });

  afterAll(async () => {
    await service?.close();
  });

  it('prints what the README says after each command', async () => {
    expect(setUp[0]).toMatch(/^TOKEN=/);
    expect(setUp[1]).toMatch(/^URL=/);
    expect(steps.filter((step) => step.prints !== undefined).length).toBeGreaterThanOrEqual(12);
    const separator = '\n--- next command ---\n';
    const script = [
      `TOKEN=${TEST_TOKEN}`,
      `URL=${url}`,
      ...setUp.slice(2),
      ...steps.map((step) => `${step.command}; printf '${separator.replaceAll('\n', '\\n')}'`),
    ].join('\n');
    const bash = spawn('bash', ['-c', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    bash.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const [code] = (await once(bash, 'exit')) as [number | null];
    expect(code).toBe(0);
    const printed = output.split(separator).slice(0, steps.length);
    expect(printed).toHaveLength(steps.length);
    const documented = steps.flatMap((step, index) =>
      step.prints === undefined ? [] : [{ command: step.command, prints: printed[index] }],
    );
    expect(documented).toStrictEqual(
      steps.flatMap((step) => (step.prints === undefined ? [] : [{ command: step.command, prints: step.prints }])),
    );
  }, 60_000);
});
