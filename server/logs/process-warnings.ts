import type { FastifyBaseLogger } from 'fastify';

/**
 * Node's process warnings (MaxListenersExceededWarning, deprecations and the like) as JSON log
 * lines at warn level, like everything else the service writes; Node would print them to stderr as
 * text, which a log pipeline cannot read, so its own printer is removed.
 */
export function logProcessWarnings(log: FastifyBaseLogger): void {
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    log.warn(
      { warning: { name: warning.name, message: warning.message, ...('code' in warning && { code: warning.code }) } },
      'process warning',
    );
  });
}
