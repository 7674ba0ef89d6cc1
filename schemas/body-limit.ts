/** The default BODY_LIMIT_BYTES; the documented 413 example names it. */
export const DEFAULT_BODY_LIMIT_BYTES = 16 * 1024;
