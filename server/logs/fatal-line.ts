import { hostname } from 'node:os';

/** A line in the shape of the service's log lines, for failures before the logger exists or after it is closed. */
export function fatalLine(message: string): string {
  return `${JSON.stringify({ level: 60, time: Date.now(), pid: process.pid, hostname: hostname(), msg: message })}\n`;
}
