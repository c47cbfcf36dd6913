import { describe, expect, it } from 'vitest';
import { resolveEndpointDiscoveryConfig } from '../../../lib/aws/endpoint-discovery.ts';
import { awsFailure, isAwsError, isServerFault } from '../../../lib/aws/errors.ts';

const named = (name: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(name), { name, ...extra });

describe('AWS error classification', () => {
  it.each([
    [named('ProvisionedThroughputExceededException'), 'throttled'],
    [named('ThrottlingException'), 'throttled'],
    [named('TransactionConflictException'), 'throttled'],
    [named('ServiceUnavailableException'), 'unavailable'],
    [named('Error', { code: 'ECONNREFUSED' }), 'unreachable'],
    [named('TimeoutError'), 'timeout'],
    [named('Error', { code: 'ETIMEDOUT' }), 'timeout'],
    [named('ThrottlingException', { code: 'ETIMEDOUT' }), 'timeout'],
    [named('ValidationException'), undefined],
    [named('ConditionalCheckFailedException'), undefined],
    ['ThrottlingException', undefined],
  ])('classifies %o as %s', (error, failure) => {
    expect(awsFailure(error)).toBe(failure);
  });

  it('recognises an SDK exception by name, and a server fault by $fault', () => {
    expect(isAwsError(named('ConditionalCheckFailedException'), 'ConditionalCheckFailedException')).toBe(
      true,
    );
    expect(isAwsError({ name: 'ConditionalCheckFailedException' }, 'ConditionalCheckFailedException')).toBe(
      false,
    );
    expect(
      [named('InternalServerError', { $fault: 'server' }), named('X', { $fault: 'client' })].map(
        isServerFault,
      ),
    ).toStrictEqual([true, false]);
  });
});

describe('the bundled endpoint-discovery stand-in', () => {
  it('resolves DynamoDB endpoint discovery to off', async () => {
    const config = resolveEndpointDiscoveryConfig({ region: 'us-east-1' }, {});
    expect({
      enabled: await config.endpointDiscoveryEnabled(),
      client: config.isClientEndpointDiscoveryEnabled,
    }).toStrictEqual({ enabled: false, client: false });
  });

  it('refuses a client that asks for endpoint discovery', () => {
    expect(() => resolveEndpointDiscoveryConfig({ endpointDiscoveryEnabled: true }, {})).toThrow(
      /not bundled/,
    );
  });
});
