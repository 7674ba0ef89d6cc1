import { hostname } from 'node:os';

const LEVELS = { warn: 40, fatal: 60 } as const;

/** A line in the shape of the service's log lines, for what is told before the logger exists or after it is closed. */
export function logLine(level: keyof typeof LEVELS, message: string): string {
  return `${JSON.stringify({ level: LEVELS[level], time: Date.now(), pid: process.pid, hostname: hostname(), msg: message })}\n`;
}

/** Whether LOG_LEVEL lets a warning through. */
export function warnsAt(logLevel: string): boolean {
  return ['trace', 'debug', 'info', 'warn'].includes(logLevel);
}
