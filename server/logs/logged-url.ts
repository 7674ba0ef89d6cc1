/** Origin and path only: the query may carry a token the receiver asked for. */
export function loggedUrl(url: string): string {
  if (!URL.canParse(url)) return '(not a URL)';
  const { origin, pathname } = new URL(url);
  return `${origin}${pathname}`;
}
