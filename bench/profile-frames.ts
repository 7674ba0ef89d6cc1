import { isAbsolute, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where a V8 profile (CPU or heap) places a sample: a function, its file and line. */
export interface CallFrame {
  functionName: string;
  url: string;
  /** 0-based. */
  lineNumber: number;
}

/** Samples grouped by npm package (or Node module, or our file), or by function. */
export type Grouping = 'package' | 'function';

/** The group of a frame: its function with file and line, or its package; `projectRoot` shortens our files' paths. */
export function keyOfFrame({ functionName, url, lineNumber }: CallFrame, by: Grouping, projectRoot: string): string {
  // A CPU profile names files by URL; a heap profile names CommonJS modules by path.
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const place = isAbsolute(path) ? relative(projectRoot, path) : path;
  if (by === 'function') return `${functionName || '(anonymous)'} ${place === '' ? '(native)' : `${place}:${lineNumber + 1}`}`;
  // V8's own entries are named in parentheses: (garbage collector), (program); others are native calls.
  if (place === '') return functionName.startsWith('(') ? functionName : `native ${functionName}`;
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(place);
  if (inPackage?.[1] !== undefined) return inPackage[1];
  // Node's own modules: node:events, node:_http_server; node:internal/streams and the like.
  if (place.startsWith('node:'))
    return place
      .split('/')
      .slice(0, place.startsWith('node:internal/') ? 2 : 1)
      .join('/');
  return place;
}
