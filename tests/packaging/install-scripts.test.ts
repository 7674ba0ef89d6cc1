// Every dependency's install script is approved or declined in package.json (npm's allowScripts),
// so `npm ci` ends with no list of scripts for a newcomer to review.
import { describe, expect, it } from 'vitest';
import { runToEnd } from '../helpers/processes.js';

describe("the dependencies' install scripts", () => {
  it('are all reviewed: npm install-scripts ls finds none left', async () => {
    const { stdout } = await runToEnd('npm', ['install-scripts', 'ls']);
    expect(stdout.trim()).toBe('No packages with unreviewed install scripts.');
  });
});
