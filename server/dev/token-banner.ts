/** `keptIn`: the file the token is kept in, so that it outlives restarts. */
export function devTokenBanner(address: string, token: string, keptIn?: string): string {
  return [
    '',
    keptIn
      ? `No API_TOKENS set: this run accepts the development token kept in ${keptIn}.`
      : 'No API_TOKENS set: this run accepts one development token.',
    `  token: ${token}`,
    '  try it:',
    `  curl -s -X POST ${address}/plants -H 'Authorization: Bearer ${token}' -H 'Content-Type: application/json' -d ` +
      `'{"id": 1, "name": "Monstera", "tag": "tropical"}'`,
    '',
  ].join('\n');
}
