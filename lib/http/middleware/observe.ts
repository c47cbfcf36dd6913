import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { Operation } from '../../auth/policy.ts';
import type { ApiMiddleware, ApiRequest } from '../types.ts';

interface Telemetry {
  logger: Logger;
  metrics: Metrics;
}

/**
 * Outermost in every chain: one structured log line per request (request id, route, status, latency and the
 * caller's `sub` — never the token) and the operation's metrics (requests, errors, latency), flushed per request.
 * Powertools' own middlewares flush the metrics (`logMetrics`) and put the Lambda context on every log line, then
 * drop the request's keys (`injectLambdaContext`); this one writes the line and the figures once the status is known.
 */
export function observe(operation: Operation, { logger, metrics }: Telemetry): ApiMiddleware[] {
  const record = (request: ApiRequest) => {
    const { startedAt = process.hrtime.bigint(), caller } = request.internal;
    const latencyMs = Math.round(Number(process.hrtime.bigint() - startedAt) / 10_000) / 100;
    const status = request.response?.statusCode ?? 500;
    const route = `${request.event.requestContext?.http?.method ?? ''} ${request.event.rawPath ?? ''}`.trim();
    const fields = {
      operation,
      route,
      status,
      latencyMs,
      ...(caller ? { sub: caller.sub } : {}),
    };
    if (status >= 500) logger.error('request', fields);
    else logger.info('request', fields);
    metrics.addDimension('operation', operation);
    metrics.addMetric('requests', MetricUnit.Count, 1);
    metrics.addMetric('errors', MetricUnit.Count, status >= 500 ? 1 : 0);
    metrics.addMetric('clientErrors', MetricUnit.Count, status >= 400 && status < 500 ? 1 : 0);
    metrics.addMetric('latency', MetricUnit.Milliseconds, latencyMs);
  };
  return [
    logMetrics(metrics),
    // Never the event, whatever POWERTOOLS_LOGGER_LOG_EVENT says: it carries the caller's token.
    injectLambdaContext(logger, { resetKeys: true, logEvent: false }),
    {
      name: 'observe',
      before: (request) => {
        // process.hrtime rather than performance.now: the first use of `performance` in a process costs over a
        // millisecond of the cold start. Kept per request, so requests that overlap are each timed from their start.
        request.internal.startedAt = process.hrtime.bigint();
        logger.appendKeys({ requestId: request.context.awsRequestId });
      },
      after: record,
      onError: record,
    },
  ];
}
