/** The items of a comma-separated environment variable, trimmed, empty ones dropped. */
export const listItems = (value: string): string[] =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
