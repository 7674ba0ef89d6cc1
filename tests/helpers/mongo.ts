// Test helper for the MongoDB chosen by the global setup: a database name unique to each test
// file, so files can run in parallel without seeing each other's data.
import { randomBytes } from 'node:crypto';

/** A fresh database name such as `t_crud_1a2b3c4d` (letters, digits and underscores, < 64 chars). */
export function uniqueDbName(label: string): string {
  const safe = label.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 40);
  return `t_${safe}_${randomBytes(4).toString('hex')}`;
}
