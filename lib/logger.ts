import { Logger } from '@aws-lambda-powertools/logger';

/** The service's structured JSON logger (level from POWERTOOLS_LOG_LEVEL). */
export const logger = new Logger({ serviceName: 'items' });
