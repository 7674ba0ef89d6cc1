import pinoPretty from 'pino-pretty';

/** The service's JSON log line as one readable line; anything else (banners, tsx's notes) unchanged. */
export function prettyLogLine(colorize: boolean): (line: string) => string {
  const format = pinoPretty.prettyFactory({
    colorize,
    singleLine: true,
    translateTime: 'HH:MM:ss.l',
    ignore: 'pid,hostname,method,path,status,ms',
    messageFormat: (log, messageKey) => {
      const message = String(log[messageKey]);
      if (typeof log.method !== 'string') return message;
      // The one line per request reads "POST /plants 200 3.1 ms".
      const request = `${log.method} ${String(log.path)} ${String(log.status)} ${String(log.ms)} ms`;
      return message === 'request completed' ? request : `${message}: ${request}`;
    },
  });
  return (line) => (line.startsWith('{') ? format(line).trimEnd() : line);
}
