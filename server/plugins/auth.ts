import fp from 'fastify-plugin';
import type { TokenVerifier } from '../../routers/auth.js';
import type { AuthConfig } from '../auth/auth-config.js';
import { createAuthenticator } from '../auth/authenticator.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Judges an Authorization header: static tokens first, then JWT access tokens. */
    verifyToken: TokenVerifier;
  }
}

/** Who may call. The identity provider's keys are fetched once the app is ready, not at the first request. */
export const authPlugin = fp<AuthConfig>(
  async (app, config) => {
    const authenticator = await createAuthenticator(config, app.log.child({ component: 'auth' }));
    app.decorate('verifyToken', authenticator.verify);
    app.addHook('onReady', async () => {
      authenticator.start();
    });
  },
  { name: 'auth' },
);
