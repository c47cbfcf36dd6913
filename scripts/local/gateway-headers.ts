// Preloaded into serverless-offline (`node --import`, scripts/local/offline.ts), where it differs from API Gateway
// (HTTP API, payload 2.0) in headers:
// - repeated request headers reach the functions as API Gateway delivers them — one header, the values joined with
//   commas — instead of serverless-offline's last-one-wins. The functions' own checks then see what they see on
//   AWS: two `Authorization` lines become one value with a comma, which lib/http/middleware/request-headers.ts
//   refuses;
// - a 204 goes out without the `Content-Type: application/json` serverless-offline adds to every reply that has
//   none: the function gave it none, and there is no body for it to describe.
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isMainThread } from 'node:worker_threads';

/** One entry per header name (first spelling and position kept), repeated values joined with commas. */
export function joinRepeatedHeaders(rawHeaders: readonly string[]): {
  raw: string[];
  joined: Map<string, string>;
} {
  const raw: string[] = [];
  const at = new Map<string, number>();
  const joined = new Map<string, string>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] ?? '';
    const value = rawHeaders[i + 1] ?? '';
    const key = name.toLowerCase();
    const index = at.get(key);
    if (index === undefined) {
      at.set(key, raw.length);
      raw.push(name, value);
    } else {
      raw[index + 1] = `${raw[index + 1]},${value}`;
      joined.set(key, raw[index + 1] ?? '');
    }
  }
  return { raw, joined };
}

// Published synchronously before the server's 'request' event, so Hapi and serverless-offline see the result.
if (isMainThread) {
  subscribe('http.server.request.start', (message) => {
    const { request, response } = message as { request: IncomingMessage; response: ServerResponse };
    const writeHead = response.writeHead;
    // Hapi sets each header, then calls writeHead with the status alone.
    response.writeHead = function (this: ServerResponse, ...args: Parameters<typeof writeHead>) {
      if (args[0] === 204) this.removeHeader('content-type');
      return writeHead.apply(this, args);
    } as typeof writeHead;
    const { raw, joined } = joinRepeatedHeaders(request.rawHeaders);
    if (joined.size === 0) return;
    // Node builds `headers` lazily from the original list; build it first, then align both with the joined list.
    const headers = request.headers;
    for (const [name, value] of joined) headers[name] = value;
    request.rawHeaders = raw;
  });
}
