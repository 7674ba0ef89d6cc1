/**
 * A webhook URL as logs and `npm run webhooks:failed` show it: its origin and path. Its query
 * may carry a token the receiver asked for, so it is left out (credentials are refused at
 * start-up: webhook-config.ts).
 */
export function loggedUrl(url: string): string {
  if (!URL.canParse(url)) return '(not a URL)';
  const { origin, pathname } = new URL(url);
  return `${origin}${pathname}`;
}
