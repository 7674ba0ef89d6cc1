/** A setting the service cannot run with; its message, "Invalid configuration:" and the problems, is shown as it is. */
export class ConfigError extends Error {
  override name = 'ConfigError';

  /** One problem, named by its variable. */
  static of(problem: string, options?: ErrorOptions): ConfigError {
    return new ConfigError(`Invalid configuration:\n  ${problem}`, options);
  }
}
