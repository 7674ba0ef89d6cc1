/** A setting the service cannot run with; its message, "Invalid configuration:" and the problems, is shown as it is. */
export class ConfigError extends Error {
  override name = 'ConfigError';

  /** The problems, each named by its variable, a line each. */
  static of(problems: string | readonly string[], options?: ErrorOptions): ConfigError {
    const lines = typeof problems === 'string' ? [problems] : problems;
    return new ConfigError(`Invalid configuration:\n${lines.map((problem) => `  ${problem}`).join('\n')}`, options);
  }
}
