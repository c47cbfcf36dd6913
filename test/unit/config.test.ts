import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config.ts';
import { ConfigError } from '../../lib/errors.ts';
import { createIssuer } from '../../scripts/local/issuer.ts';

const env = {
  AWS_REGION: 'eu-west-1',
  TABLE_NAME: 'items-dev',
  COGNITO_USER_POOL_ID: 'eu-west-1_AbC123',
  COGNITO_CLIENT_ID: 'abcdefghijklmnopqrstuvwxyz',
  CURSOR_KEY: 'x'.repeat(32),
};

describe('loadConfig', () => {
  it('parses a deployed configuration and freezes it', () => {
    const config = loadConfig({ ...env, DYNAMODB_ENDPOINT: '', LOCAL_JWKS: '' });
    expect(config).toStrictEqual({
      region: 'eu-west-1',
      generator: { kind: 'extractive' },
      tableName: 'items-dev',
      dynamodbEndpoint: undefined,
      cursorKey: 'x'.repeat(32),
      cacheMaxAge: 0,
      indexConcurrency: undefined,
      indexWritesPerTransaction: undefined,
      auth: { userPoolId: 'eu-west-1_AbC123', clientId: 'abcdefghijklmnopqrstuvwxyz', jwks: undefined },
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('parses the local JWKS and endpoint', () => {
    const { jwks } = createIssuer();
    const config = loadConfig({
      ...env,
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
      LOCAL_JWKS: JSON.stringify(jwks),
    });
    expect(config.auth.jwks).toStrictEqual(jwks);
    expect(config.dynamodbEndpoint).toBe('http://127.0.0.1:8000');
  });

  it('reads the cache lifetime of public reads in whole seconds, 0 when unset or empty', () => {
    expect(loadConfig({ ...env, CACHE_MAX_AGE: '60' }).cacheMaxAge).toBe(60);
    expect(loadConfig({ ...env, CACHE_MAX_AGE: '' }).cacheMaxAge).toBe(0);
    expect(() => loadConfig({ ...env, CACHE_MAX_AGE: '1.5' })).toThrow(
      new ConfigError(['CACHE_MAX_AGE must be a whole number of seconds']),
    );
  });

  it("reads the stream consumer's requests in flight, 1 to 512, its default when unset or empty", () => {
    expect(loadConfig({ ...env, INDEX_CONCURRENCY: '128' }).indexConcurrency).toBe(128);
    expect(loadConfig({ ...env, INDEX_CONCURRENCY: '512' }).indexConcurrency).toBe(512);
    expect(loadConfig({ ...env, INDEX_CONCURRENCY: '' }).indexConcurrency).toBeUndefined();
    for (const bad of ['0', '513', '1000', '12.5', '-1'])
      expect(() => loadConfig({ ...env, INDEX_CONCURRENCY: bad })).toThrow(
        new ConfigError(['INDEX_CONCURRENCY must be 1-512']),
      );
  });

  it("reads the stream consumer's writes a transaction, 1 to 100 (DynamoDB's most), its default when unset or empty", () => {
    expect(loadConfig({ ...env, INDEX_WRITES_PER_TRANSACTION: '50' }).indexWritesPerTransaction).toBe(50);
    expect(loadConfig({ ...env, INDEX_WRITES_PER_TRANSACTION: '100' }).indexWritesPerTransaction).toBe(100);
    expect(loadConfig({ ...env, INDEX_WRITES_PER_TRANSACTION: '1' }).indexWritesPerTransaction).toBe(1);
    expect(
      loadConfig({ ...env, INDEX_WRITES_PER_TRANSACTION: '' }).indexWritesPerTransaction,
    ).toBeUndefined();
    for (const bad of ['0', '101', '250', '2.5', '-1', '050'])
      expect(() => loadConfig({ ...env, INDEX_WRITES_PER_TRANSACTION: bad })).toThrow(
        new ConfigError(['INDEX_WRITES_PER_TRANSACTION must be 1-100']),
      );
  });

  it('names every bad variable', () => {
    const { TABLE_NAME: _, ...missingTable } = env;
    expect(() => loadConfig({ ...missingTable, CURSOR_KEY: 'short', LOCAL_JWKS: '{"keys":5}' })).toThrow(
      new ConfigError([
        'TABLE_NAME is required',
        'CURSOR_KEY must be at least 32 characters',
        'LOCAL_JWKS must be a JWKS document',
      ]),
    );
  });
});
