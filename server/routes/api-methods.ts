import { procedureEntries, restOperations } from '@plant-store/fast-path';
import type { AppRouter } from '../../routers/app.js';
import { inMethodOrder } from '../methods/method-order.js';

/** Every method the API answers: its REST operations' own, and GET (queries) or POST (mutations) on /trpc. */
export function apiMethods(router: AppRouter): string[] {
  const rest = restOperations(router).map(({ method }) => method);
  const trpc = procedureEntries(router).map(({ type }) => (type === 'query' ? 'GET' : 'POST'));
  return inMethodOrder([...rest, ...trpc]);
}
