import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';

/** The service's structured JSON logger (level from POWERTOOLS_LOG_LEVEL). */
export const logger = new Logger({ serviceName: 'items' });

/** Per-operation metrics (count, errors, latency) in CloudWatch embedded metric format. */
export const metrics = new Metrics({ namespace: 'ItemsService', serviceName: 'items' });
