import type { FastifyBaseLogger } from 'fastify';

/** Node prints warnings to stderr as text, which a log pipeline cannot read, so they become JSON log lines. */
export function logProcessWarnings(log: FastifyBaseLogger): void {
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    log.warn(
      { warning: { name: warning.name, message: warning.message, ...('code' in warning && { code: warning.code }) } },
      'process warning',
    );
  });
}
