import { request as httpRequest } from 'node:http';
import { stack } from './stack.ts';

export interface Reply {
  status: number;
  headers: Headers;
  body: unknown;
}

/** One HTTP request to the API under serverless-offline; the body is parsed when it is JSON. */
export async function call(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization ??= `Bearer ${options.token}`;
  let body: string | undefined = options.raw;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${stack.baseUrl}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  const isJson = response.headers.get('content-type')?.startsWith('application/json');
  return {
    status: response.status,
    headers: response.headers,
    body: isJson && text ? JSON.parse(text) : text,
  };
}

/**
 * One request whose headers are sent as given: an array value is sent as that many header lines (fetch would join
 * them into one), as a client that repeats a header sends it.
 */
export function callWithHeaderLines(
  method: string,
  path: string,
  headers: Record<string, string | string[]>,
): Promise<{ status: number; contentType: string | undefined; body: unknown }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${stack.baseUrl}${path}`, { method, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () => {
        const contentType = response.headers['content-type'];
        resolve({
          status: response.statusCode ?? 0,
          contentType,
          body: contentType?.startsWith('application/json') && text ? JSON.parse(text) : text,
        });
      });
    });
    request.on('error', reject);
    request.end();
  });
}

/** Polls until `check` holds: the index is updated from the stream, within the contract's 2 s. */
export async function eventually(
  check: () => Promise<boolean>,
  what: string,
  timeoutMs = 8000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not within ${timeoutMs} ms: ${what}`);
}
