import { startService } from '@plant-store/service-launcher';

/** Asked this often, the first 200 is seen within a few ms of the service being ready. */
const POLL_INTERVAL_MS = 2;
const GIVE_UP_MS = 15_000;

/**
 * Milliseconds from spawning the built service (`node dist/server/main.js`, production mode,
 * against the MongoDB at `mongodbUri`) to its first 200 on /healthz.
 */
export async function measureStartup({ mongodbUri, token }: { mongodbUri: string; token: string }): Promise<number> {
  const service = await startService(
    { NODE_ENV: 'production', LOG_LEVEL: 'warn', MONGODB_URI: mongodbUri, API_TOKENS: token },
    { inheritEnv: true, echo: true, startTimeoutMs: GIVE_UP_MS, pollIntervalMs: POLL_INTERVAL_MS },
  );
  await service.stop('SIGTERM');
  return service.startupMs;
}
