import type { AuthRefusal } from '../../routers/auth.js';

/** The headers of a refused call, per RFC 6750 section 3, the same on REST and /trpc. */
export function refusalHeaders(refusal: AuthRefusal): Record<string, string> {
  switch (refusal.status) {
    case 'missing':
      return { 'www-authenticate': 'Bearer' };
    case 'invalid':
      return { 'www-authenticate': `Bearer error="invalid_token", error_description="${quotable(refusal.reason)}"` };
    case 'forbidden':
      return { 'www-authenticate': `Bearer error="insufficient_scope", scope="${refusal.scope}"` };
    case 'unavailable':
      return { 'retry-after': String(refusal.retryAfterS) };
  }
}

/** RFC 6750 allows printable ASCII but `"` and `\` in these values; the reasons are written so, and this keeps them so. */
function quotable(text: string): string {
  return text.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, "'");
}
