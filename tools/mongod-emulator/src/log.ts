// mongod-style structured log lines (one JSON document per line on stdout).
// mongodb-memory-server watches stdout for "Waiting for connections".

type Severity = 'I' | 'W' | 'E';

let sink: (line: string) => void = (line) => process.stdout.write(`${line}\n`);

/** Lets tests or embedders capture log lines instead of writing to stdout. */
export function setLogSink(next: (line: string) => void): void {
  sink = next;
}

export function log(severity: Severity, component: string, id: number, msg: string, attr: Record<string, unknown> = {}): void {
  sink(JSON.stringify({ t: { $date: new Date().toISOString() }, s: severity, c: component, id, ctx: 'emulator', msg, attr }));
}
