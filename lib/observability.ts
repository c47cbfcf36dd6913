import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logger } from './logger.ts';

/** Per-operation metrics (count, errors, latency) in CloudWatch embedded metric format. */
export const metrics = new Metrics({ namespace: 'ItemsService', serviceName: 'items' });

export { logger, MetricUnit };
