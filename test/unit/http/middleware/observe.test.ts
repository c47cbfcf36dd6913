import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { fc, test } from '@fast-check/vitest';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HttpError, NotFoundError } from '../../../../lib/http/errors.ts';
import { httpResponse } from '../../../../lib/http/middleware/http-response.ts';
import { observe } from '../../../../lib/http/middleware/observe.ts';
import type { ApiEvent, HttpResult, RequestState } from '../../../../lib/http/types.ts';

const context = { awsRequestId: 'req-123', functionName: 'items-test-getItem' } as Context;
const event = () =>
  ({
    rawPath: '/items/7',
    headers: { authorization: 'Bearer SECRET.TOKEN.VALUE' },
    requestContext: { http: { method: 'GET' } },
  }) as unknown as ApiEvent;

/** Runs a chain and returns the JSON lines it wrote to stdout and stderr (the real Powertools output). */
async function run(handler: () => Promise<HttpResult>, caller?: { sub: string }) {
  const lines: string[] = [];
  const capture = (chunk: unknown) => {
    lines.push(String(chunk));
    return true;
  };
  const spies = [
    vi.spyOn(process.stdout, 'write').mockImplementation(capture),
    vi.spyOn(process.stderr, 'write').mockImplementation(capture),
  ];
  try {
    const telemetry = {
      logger: new Logger({ serviceName: 'items', logLevel: 'INFO' }),
      metrics: new Metrics({ namespace: 'Test', serviceName: 'items' }),
    };
    const chain = middy<ApiEvent, HttpResult, Error, Context, RequestState>()
      .use(observe('getItem', telemetry))
      .use(httpResponse())
      // As the authenticate middleware leaves a verified caller.
      .before(({ internal }) => {
        if (caller) internal.caller = { ...caller, username: caller.sub, groups: [] };
      })
      .handler(handler);
    const response = await chain(event(), context);
    return {
      response,
      records: lines
        .flatMap((l) => l.split('\n'))
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

afterEach(() => vi.restoreAllMocks());

describe('observe middleware', () => {
  it('logs one structured line per request with request id, route, status, latency and sub — never the token', async () => {
    const { records } = await run(async () => ({ statusCode: 200, body: { ok: true } }), { sub: 'user-9' });
    const log = records.find((r) => r.message === 'request');
    expect(log).toMatchObject({
      level: 'INFO',
      service: 'items',
      requestId: 'req-123',
      function_request_id: 'req-123',
      operation: 'getItem',
      route: 'GET /items/7',
      status: 200,
      latencyMs: expect.any(Number),
      sub: 'user-9',
    });
    expect(JSON.stringify(records)).not.toContain('SECRET');
  });

  it('times each request from its own start when requests overlap', async () => {
    const lines: string[] = [];
    const capture = (chunk: unknown) => {
      lines.push(String(chunk));
      return true;
    };
    vi.spyOn(process.stdout, 'write').mockImplementation(capture);
    vi.spyOn(process.stderr, 'write').mockImplementation(capture);
    const logger = new Logger({ serviceName: 'items', logLevel: 'INFO' });
    const metrics = new Metrics({ namespace: 'Test', serviceName: 'items' });
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const chain = middy<ApiEvent, HttpResult, Error, Context, RequestState>()
      .use(observe('getItem', { logger, metrics }))
      .use(httpResponse())
      .handler(async (received) => {
        if (received.rawPath === '/items/1') await held;
        return { statusCode: 200 };
      });
    const first = chain({ ...event(), rawPath: '/items/1' }, context);
    // The first request has run for 50 ms or more when the second starts; the second ends before the first.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await chain({ ...event(), rawPath: '/items/2' }, context);
    release();
    await first;
    vi.restoreAllMocks();
    const latency = Object.fromEntries(
      lines
        .flatMap((line) => line.split('\n'))
        .filter(Boolean)
        .map((line) => JSON.parse(line))
        .filter((record) => record.message === 'request')
        .map((record) => [record.route, record.latencyMs]),
    );
    expect(latency['GET /items/1']).toBeGreaterThanOrEqual(49);
  });

  it('emits requests, errors and latency per operation in embedded metric format', async () => {
    const { records } = await run(async () => {
      throw new Error('boom');
    });
    const emf = records.find((r) => r._aws);
    expect(emf._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: 'Test',
      Dimensions: [expect.arrayContaining(['service', 'operation'])],
      Metrics: expect.arrayContaining([
        { Name: 'requests', Unit: 'Count' },
        { Name: 'errors', Unit: 'Count' },
        { Name: 'latency', Unit: 'Milliseconds' },
      ]),
    });
    expect(emf).toMatchObject({ operation: 'getItem', requests: 1, errors: 1, clientErrors: 0 });
    expect(records.find((r) => r.message === 'request')).toMatchObject({ level: 'ERROR', status: 500 });
  });

  it('counts a client error without calling it a server error', async () => {
    const { response, records } = await run(async () => {
      throw new NotFoundError('Item not found');
    });
    expect(response.statusCode).toBe(404);
    expect(records.find((r) => r._aws)).toMatchObject({ errors: 0, clientErrors: 1 });
  });

  test.prop([fc.integer({ min: 200, max: 599 }), fc.boolean()])(
    'logs one line and counts one request per invocation, its status and error class included',
    async (status, throws) => {
      const { response, records } = await run(async () => {
        if (throws && status >= 400) throw new HttpError(status, 'refused');
        return { statusCode: status };
      });
      expect(response.statusCode).toBe(status);
      expect(records.filter((r) => r.message === 'request')).toStrictEqual([
        expect.objectContaining({ status, level: status >= 500 ? 'ERROR' : 'INFO', requestId: 'req-123' }),
      ]);
      expect(records.filter((r) => r._aws)).toStrictEqual([
        expect.objectContaining({
          requests: 1,
          errors: status >= 500 ? 1 : 0,
          clientErrors: status >= 400 && status < 500 ? 1 : 0,
        }),
      ]);
    },
  );
});
