import type { Socket } from 'node:net';
import type { ServerResponse } from 'node:http';

/**
 * The answer Node is writing on the socket, if any: Node's own field, read as its own handler of client errors reads
 * it. Node hands the socket each queued answer in turn as the one before ends.
 */
export function answerInFlight(socket: Socket): ServerResponse | undefined {
  return (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
}
