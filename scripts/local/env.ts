// The functions' environment locally, apart from the stack that starts them: importing it loads none of the
// service's modules (whose logger and metrics read the environment when they are first loaded).
import type { Issuer } from './issuer.ts';

export const LOCAL_TABLE = 'items-local';
/**
 * The stream consumer's doc records and term homes a transaction locally. DynamoDB Local commits a table's writes one
 * at a time, and a transaction's in one commit, so 50 a transaction go 3-5 times the pace of one a request
 * (lib/dynamodb/write-groups.ts); on AWS, where a transaction costs twice the write units, the consumer writes one a
 * request. INDEX_WRITES_PER_TRANSACTION sets it (1 writes as on AWS).
 */
export const LOCAL_WRITES_PER_TRANSACTION = Number(process.env.INDEX_WRITES_PER_TRANSACTION ?? 50);

/** The environment the functions get locally: what serverless.yml's `local` stage parameters read. */
export function localEnv(
  issuer: Issuer,
  dynamodbEndpoint: string,
  cursorKey: string,
): Record<string, string> {
  return {
    AWS_REGION: issuer.meta.region,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    COGNITO_USER_POOL_ID: issuer.meta.userPoolId,
    COGNITO_CLIENT_ID: issuer.meta.clientId,
    LOCAL_JWKS: JSON.stringify(issuer.jwks),
    CURSOR_KEY: cursorKey,
    DYNAMODB_ENDPOINT: dynamodbEndpoint,
    TABLE_NAME: LOCAL_TABLE,
    INDEX_WRITES_PER_TRANSACTION: String(LOCAL_WRITES_PER_TRANSACTION),
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: process.env.LOG_LEVEL ?? 'WARN',
  };
}
