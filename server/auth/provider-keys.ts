import type { FastifyBaseLogger } from 'fastify';
import { createRemoteJWKSet, customFetch, errors, type FetchImplementation, type JWTVerifyGetKey, type RemoteJWKSet } from 'jose';
import { loggedUrl } from '../logs/logged-url.js';

const FETCH_TIMEOUT_MS = 5_000;
/** How long fetched keys are used before they are fetched again (jose's default): a withdrawn key stops counting within it. */
export const KEYS_MAX_AGE_MS = 10 * 60_000;
/** The largest key set read: a real one is a few KB; a larger answer is refused like a provider that does not answer. */
export const MAX_KEY_SET_BYTES = 256 * 1024;
/** After a failed fetch, the next one waits this long, or the cooldown if that is shorter. */
const RETRY_AFTER_FAILURE_MS = 5_000;

/** The keys cannot be fetched now; `retryAfterMs`: when the next fetch may be tried. */
export class KeysUnavailable extends Error {
  override name = 'KeysUnavailable';
  constructor(
    readonly retryAfterMs: number,
    options?: ErrorOptions,
  ) {
    super('the identity provider keys cannot be fetched', options);
  }
}

export interface ProviderKeysOptions {
  url: string;
  cooldownMs: number;
  log: FastifyBaseLogger;
  /** Told after a successful fetch that brought keys other than the last one's. */
  onChange: () => void;
}

/**
 * jose fetches at most once per cooldown for an unknown `kid`, so made-up kids cost little, and reads keys from this URL only.
 * Added through `customFetch`: after a failure, no fetch for a while, so a provider that is down is not asked per request.
 */
export class ProviderKeys {
  private readonly remote: RemoteJWKSet;
  private readonly retryWaitMs: number;
  private retryAt = 0;
  private failing = false;
  private lastKeySet: string | undefined;

  constructor(private readonly options: ProviderKeysOptions) {
    this.retryWaitMs = Math.min(RETRY_AFTER_FAILURE_MS, options.cooldownMs);
    const fetchKeys: FetchImplementation = (url, init) => this.fetchKeys(url, init);
    this.remote = createRemoteJWKSet(new URL(options.url), {
      cooldownDuration: options.cooldownMs,
      cacheMaxAge: KEYS_MAX_AGE_MS,
      timeoutDuration: FETCH_TIMEOUT_MS,
      [customFetch]: fetchKeys,
    });
  }

  /** jose's key getter, for `jwtVerify`: a key, a token problem (jose's error), or KeysUnavailable. */
  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    try {
      return await this.remote(header, token);
    } catch (error) {
      if (isTokenProblem(error)) throw error;
      throw error instanceof KeysUnavailable ? error : new KeysUnavailable(this.retryAt - Date.now(), { cause: error });
    }
  };

  /** For a token that names no key and verifies with none held: the provider may have published a new one. */
  async refresh(): Promise<boolean> {
    if (this.remote.coolingDown) return false;
    try {
      await this.remote.reload();
      return true;
    } catch (error) {
      throw error instanceof KeysUnavailable ? error : new KeysUnavailable(this.retryAt - Date.now(), { cause: error });
    }
  }

  /** Fetches the keys now unless they are already here, without waiting: the service starts whether or not the provider answers. */
  prefetch(): void {
    // A failure is logged by fetchKeys; the next token that needs the keys tries again.
    if (!this.remote.fresh) this.remote.reload().catch(() => undefined);
  }

  private async fetchKeys(url: string, init: Parameters<FetchImplementation>[1]): Promise<Response> {
    const waitMs = this.retryAt - Date.now();
    if (waitMs > 0) throw new KeysUnavailable(waitMs);
    try {
      const response = await fetch(url, init);
      if (response.status !== 200) throw new Error(`the key set URL answered HTTP ${response.status}`);
      const text = await readCapped(response, MAX_KEY_SET_BYTES);
      if (!isKeySet(text)) throw new Error('the key set URL answered something other than a JSON Web Key Set');
      this.fetched(text);
      return new Response(text, { status: 200 });
    } catch (error) {
      this.failed(error);
      throw error;
    }
  }

  private fetched(keySet: string): void {
    if (this.failing) this.options.log.info({ url: loggedUrl(this.options.url) }, 'the identity provider keys are fetched again');
    this.failing = false;
    if (keySet !== this.lastKeySet) this.options.onChange();
    this.lastKeySet = keySet;
  }

  private failed(error: unknown): void {
    this.retryAt = Date.now() + this.retryWaitMs;
    if (this.failing) return;
    this.failing = true;
    const cause = error instanceof Error ? error.message : String(error);
    this.options.log.warn(
      { url: loggedUrl(this.options.url), cause },
      'the identity provider keys cannot be fetched: JWT access tokens are answered 503 until they are',
    );
  }
}

/** Reads at most `maxBytes`: `response.text()` would hold whatever the URL sends. */
async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const tooLarge = () => new Error(`the key set URL answered more than ${maxBytes} bytes`);
  if (Number(response.headers.get('content-length')) > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader: ReadableStreamDefaultReader<Uint8Array> | undefined = response.body?.getReader();
  for (let read = await reader?.read(); read && !read.done; read = await reader?.read()) {
    size += read.value.byteLength;
    if (size > maxBytes) {
      // The rest is not read: cancelling ends the connection.
      await reader?.cancel();
      throw tooLarge();
    }
    chunks.push(read.value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** jose's errors that are the token's doing, not the key set's. */
function isTokenProblem(error: unknown): boolean {
  return (
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JWKSMultipleMatchingKeys ||
    error instanceof errors.JOSENotSupported
  );
}

function isKeySet(text: string): boolean {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return false;
  }
  const keys = (json as { keys?: unknown } | null)?.keys;
  return Array.isArray(keys) && keys.every((key) => typeof key === 'object' && key !== null && !Array.isArray(key));
}
