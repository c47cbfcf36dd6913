import { expect } from 'vitest';
import { errorBodyProblems, itemProblems, JSON_TYPE } from './contract.ts';

/** One reply, with its raw text and how long it took. */
export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
  ms: number;
}

export interface RequestOptions {
  token?: string;
  /** Sent as JSON with `Content-Type: application/json` unless a content type is given. */
  body?: unknown;
  /** Sent as is (with `Content-Type: application/json` unless one is given). */
  raw?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

/** An HTTP client on one stack's base URL (the shared stack, or a suite's own). */
export function httpClient(baseUrl: string) {
  return async function request(method: string, path: string, options: RequestOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers.authorization ??= `Bearer ${options.token}`;
    const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const started = performance.now();
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      signal: AbortSignal.timeout(options.timeoutMs ?? 28_000),
      ...(body === undefined ? {} : { body }),
    });
    const text = await response.text();
    const ms = performance.now() - started;
    let parsed: unknown = text;
    if (response.headers.get('content-type')?.startsWith('application/json') && text) {
      try {
        parsed = JSON.parse(text);
      } catch {}
    }
    return { status: response.status, headers: response.headers, text, body: parsed, ms };
  };
}

export type Request = ReturnType<typeof httpClient>;

/** Status, content type and body: what most assertions compare whole. */
export const summary = (reply: Reply) => ({
  status: reply.status,
  contentType: reply.headers.get('content-type'),
  body: reply.body,
});

/** The summary an error reply must have. */
export const errorReply = (status: number, body: unknown) => ({ status, contentType: JSON_TYPE, body });

/** Asserts that a 4xx reply is the contract's error object, as JSON. */
export function expectErrorShape(reply: Reply, context: string): void {
  expect(reply.headers.get('content-type'), context).toBe(JSON_TYPE);
  expect(errorBodyProblems(reply.body), context).toStrictEqual([]);
}

/** Asserts that a body is a whole, valid item (§2). */
export function expectItem(value: unknown, context: string): void {
  expect(itemProblems(value), `${context}: ${JSON.stringify(value)?.slice(0, 500)}`).toStrictEqual([]);
}

/**
 * Every item with an id up to `maxId`, listed through the API, page by page. Pages never reach past `maxId`
 * (ids are unique integers, so `limit` = the ids left is enough), so records other suites put far above it
 * on purpose (a corrupt item at id 8000000001) are never read.
 */
export async function listUpTo(request: Request, maxId: number): Promise<unknown[]> {
  const items: unknown[] = [];
  let lastId = 0;
  let cursor: string | undefined;
  while (lastId < maxId) {
    const limit = Math.min(100, maxId - lastId);
    const reply = await request(
      'GET',
      `/items?limit=${limit}${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
    );
    expect(reply.status, `list after id ${lastId}: ${reply.text.slice(0, 300)}`).toBe(200);
    const page = reply.body as { id: number }[];
    items.push(...page);
    const link = reply.headers.get('link');
    const next = link ? /[?&]cursor=([^&>]+)/.exec(link)?.[1] : undefined;
    if (!next || page.length === 0) break;
    cursor = decodeURIComponent(next);
    lastId = page.at(-1)?.id ?? maxId;
  }
  return items;
}

/** Runs `tasks` with at most `limit` in flight, keeping their order in the result. */
export async function pool<T>(limit: number, tasks: readonly (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      const task = tasks[index];
      if (task) results[index] = await task();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

/** Polls `probe` until it returns true or `timeoutMs` passes; resolves to whether it did. */
export async function eventually(probe: () => Promise<boolean>, timeoutMs: number, everyMs = 100) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe().catch(() => false)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** A positive whole number from the environment (for larger runs), or the default. */
export function envCount(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isSafeInteger(value) && value > 0 ? value : fallback;
}
