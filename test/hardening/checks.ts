// Response checks for the fuzz suite, from the contract (§1, §5, §6); independent of lib/.
import { expect } from 'vitest';
import { codePoints, isPlainObject, itemProblems } from './contract.ts';
import { expectErrorShape, type Reply } from './http.ts';
import { type Fields, type Filter, matchesFilter, type Outcome } from './model.ts';

/**
 * What a body should get before validation: 413 (too large), 400 (not JSON), or the model's verdict.
 * `emulator`: a top-level `null`, `false`, `0` or string, which serverless-offline mangles (see below).
 */
export type Expected<T> = { kind: 'status'; status: 400 | 413 } | { kind: 'emulator' } | Outcome<T>;

/** Decides the outcome of a body text: size first, then JSON, then the model (the middleware's order). */
export function expectedForBody<T>(text: string, model: (body: unknown) => Outcome<T>): Expected<T> {
  if (Buffer.byteLength(text, 'utf8') > 64 * 1024) return { kind: 'status', status: 413 };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { kind: 'status', status: 400 };
  }
  // serverless-offline (not API Gateway) parses JSON bodies itself and then hands the function nothing for a
  // top-level null or "", the raw value for false and 0 (not a string: the function's Buffer.byteLength throws,
  // 500), and the decoded text for a top-level string. Behind API Gateway the function gets the text (422).
  if (parsed === null || parsed === false || parsed === 0 || typeof parsed === 'string')
    return { kind: 'emulator' };
  return model(parsed);
}

/**
 * Checks the reply against the expected outcome: never a 5xx; every 4xx the contract's error object; 400, 413
 * and 422 exactly when expected. Returns the success value to check further, or undefined.
 */
export function checkReply<T>(
  reply: Reply,
  expected: Expected<T>,
  context: string,
): T | 'either' | undefined {
  const where = `${context}\n→ ${reply.status} ${reply.text.slice(0, 400)}`;
  if (expected.kind === 'emulator') {
    if (reply.status >= 500) {
      expect({ status: reply.status, body: reply.body }, where).toStrictEqual({
        status: 500,
        body: { error: 'Internal server error' },
      });
      return undefined;
    }
    if (reply.status >= 400) expectErrorShape(reply, where);
    return reply.status < 300 ? 'either' : undefined;
  }
  expect(reply.status, where).toBeLessThan(500);
  // serverless-offline reports a function that crashed or timed out as a 200 with a stack trace.
  expect(Object.hasOwn(Object(reply.body), 'errorMessage'), `the function failed: ${where}`).toBe(false);
  if (reply.status >= 400) expectErrorShape(reply, where);
  if (expected.kind === 'status') {
    expect(reply.status, where).toBe(expected.status);
    if (expected.status === 400)
      expect(reply.body, where).toStrictEqual({ error: 'Request body is not valid JSON' });
    return undefined;
  }
  if (expected.kind === 'invalid') {
    expect(reply.status, where).toBe(422);
    expect((reply.body as { error: string }).error, where).toBe('Validation failed');
    expect(Object.hasOwn(reply.body as object, 'details'), where).toBe(true);
    return undefined;
  }
  if (expected.kind === 'either') {
    if (reply.status === 422) return undefined;
    expect(reply.status, where).toBeGreaterThanOrEqual(200);
    expect(reply.status, where).toBeLessThan(300);
    return 'either';
  }
  expect(reply.status, where).toBeGreaterThanOrEqual(200);
  expect(reply.status, where).toBeLessThan(300);
  return expected.value;
}

const fieldsOf = (item: Record<string, unknown>): Fields => item as unknown as Fields;

/** `POST /retrieve` 200: ranked, scored, filtered, at most topK, every item whole and valid. */
export function checkRetrieveResults(
  body: unknown,
  request: { topK: number; minScore: number; filter: Filter | undefined } | undefined,
  context: string,
): void {
  expect(isPlainObject(body), context).toBe(true);
  const { query, results, ...rest } = body as { query: unknown; results: unknown };
  expect(rest, context).toStrictEqual({});
  expect(typeof query, context).toBe('string');
  expect(Array.isArray(results), context).toBe(true);
  const list = results as Record<string, unknown>[];
  if (request) expect(list.length, context).toBeLessThanOrEqual(request.topK);
  list.forEach((result, index) => {
    expect(Object.keys(result).sort(), context).toStrictEqual(['item', 'matchedTerms', 'rank', 'score']);
    expect(result.rank, context).toBe(index + 1);
    expect(Number.isFinite(result.score), context).toBe(true);
    if (request) expect(result.score as number, context).toBeGreaterThan(request.minScore);
    expect(itemProblems(result.item), context).toStrictEqual([]);
    const terms = result.matchedTerms;
    expect(
      Array.isArray(terms) && terms.length > 0 && terms.every((t) => typeof t === 'string'),
      context,
    ).toBe(true);
    if (request)
      expect(matchesFilter(fieldsOf(result.item as Record<string, unknown>), request.filter), context).toBe(
        true,
      );
    const previous = list[index - 1];
    if (previous) {
      const [a, b] = [previous.score as number, result.score as number];
      const [idA, idB] = [(previous.item as { id: number }).id, (result.item as { id: number }).id];
      expect(a > b || (a === b && idA < idB), `${context}: order at rank ${index + 1}`).toBe(true);
    }
  });
}

const STOP_REASONS = ['end_turn', 'max_tokens', 'stop_sequence', 'guardrail_intervened', 'content_filtered'];
const isCount = (value: unknown) => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** `POST /generate` 200: the response shape, and citations that back every marker in the answer. */
export function checkGenerateResponse(body: unknown, topK: number | undefined, context: string): void {
  expect(isPlainObject(body), context).toBe(true);
  const b = body as Record<string, unknown>;
  expect(Object.keys(b).sort(), context).toStrictEqual([
    'answer',
    'citations',
    'grounded',
    'model',
    'query',
    'stopReason',
    'usage',
  ]);
  expect(
    typeof b.query === 'string' && typeof b.answer === 'string' && typeof b.grounded === 'boolean',
    context,
  ).toBe(true);
  expect(typeof b.model === 'string' && codePoints(b.model) > 0, context).toBe(true);
  expect(STOP_REASONS, context).toContain(b.stopReason);
  const usage = b.usage as Record<string, unknown>;
  expect(Object.keys(usage).sort(), context).toStrictEqual(['inputTokens', 'outputTokens', 'totalTokens']);
  expect(Object.values(usage).every(isCount), context).toBe(true);
  const citations = b.citations as Record<string, unknown>[];
  expect(Array.isArray(citations), context).toBe(true);
  if (topK !== undefined) expect(citations.length, context).toBeLessThanOrEqual(topK);
  for (const citation of citations) {
    expect(Object.keys(citation).sort(), context).toStrictEqual([
      'itemId',
      'name',
      'passage',
      'ref',
      'score',
    ]);
    // The supporting passage (contract §8.5): at most 240 characters plus the two … marks.
    expect(typeof citation.passage === 'string' && codePoints(citation.passage) <= 242, context).toBe(true);
    expect(Number.isSafeInteger(citation.ref) && (citation.ref as number) >= 1, context).toBe(true);
    expect(Number.isSafeInteger(citation.itemId) && (citation.itemId as number) >= 1, context).toBe(true);
    expect(typeof citation.name === 'string' && Number.isFinite(citation.score), context).toBe(true);
  }
  if (!b.grounded) expect(citations, context).toStrictEqual([]);
  const refs = new Set(citations.map((c) => c.ref));
  expect(refs.size, context).toBe(citations.length);
  for (const [, n] of (b.answer as string).matchAll(/\[(\d+)\]/g)) {
    expect(refs.has(Number(n)), `${context}: [${n}] in the answer has no citation`).toBe(true);
  }
}
