import { fc, test } from '@fast-check/vitest';
import * as v from 'valibot';
import { describe, expect, it, vi } from 'vitest';
import { createTokenVerifier } from '../../../lib/auth/verifier.ts';
import type { ApiResult } from '../../../lib/http/types.ts';
import { createIssuer, mintToken } from '../../../scripts/local/issuer.ts';
import { apiGatewayEvent, context } from './events.ts';

// The route's metrics are the process's own; here they stay off stdout. They read the variable once, when the
// module is first loaded, so it is put back at once: the unit files share one module cache (isolate: false).
vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'true');
const { httpRoute } = await import('../../../lib/http/route.ts');
vi.unstubAllEnvs();

const issuer = createIssuer();
const verifier = createTokenVerifier({
  userPoolId: issuer.meta.userPoolId,
  clientId: issuer.meta.clientId,
  jwks: issuer.jwks,
});
const editor = mintToken(issuer, { groups: ['editor'] });
const Body = v.strictObject({ name: v.pipe(v.string(), v.nonEmpty('must not be empty')) });
const Path = v.strictObject({
  item_id: v.pipe(v.string(), v.regex(/^[1-9][0-9]*$/, 'must be a positive integer')),
});
const route = httpRoute('replaceItem', {
  verifier,
  inputs: { path: Path, body: Body },
  output: v.strictObject({ id: v.number(), name: v.string() }),
}).handler(async ({ input: { path, body } }) => ({
  statusCode: 200,
  body: body.name === 'broken' ? { id: 'x' } : { id: Number(path.item_id), name: body.name },
}));

/** One way for a request to be wrong, each caught by one step of the chain. */
const FAULTS = {
  header: 400,
  token: 401,
  size: 413,
  type: 415,
  json: 400,
  value: 422,
} as const;
type Fault = keyof typeof FAULTS;
const ORDER: Fault[] = ['header', 'token', 'size', 'type', 'json', 'value'];

function request(faults: ReadonlySet<Fault>) {
  const body = faults.has('json') ? '{"name":' : JSON.stringify({ name: faults.has('value') ? '' : 'Boot' });
  return apiGatewayEvent({
    method: 'PUT',
    path: '/items/7',
    pathParameters: { item_id: '7' },
    headers: {
      authorization: faults.has('token') ? 'Bearer forged.token.value' : `Bearer ${editor}`,
      'content-type': faults.has('type') ? 'text/plain' : 'application/json',
      ...(faults.has('header') ? { 'if-match': 'seven' } : {}),
    },
    body: faults.has('size') ? `${body}${' '.repeat(64 * 1024)}` : body,
  });
}
const call = async (event: ReturnType<typeof apiGatewayEvent>) =>
  (await route(event as never, context)) as ApiResult;

describe('httpRoute', () => {
  it('runs the handler on a valid request and answers its result as JSON', async () => {
    const reply = await call(request(new Set()));
    expect({ status: reply.statusCode, body: reply.body }).toStrictEqual({
      status: 200,
      body: '{"id":7,"name":"Boot"}',
    });
  });

  it('answers 500 when the handler’s body breaks the output schema', async () => {
    const event = { ...request(new Set()), body: '{"name":"broken"}' };
    const reply = await call(event);
    expect({ status: reply.statusCode, body: reply.body }).toStrictEqual({
      status: 500,
      body: '{"error":"Internal server error"}',
    });
  });

  test.prop([fc.subarray(ORDER, { minLength: 1 })])(
    'answers the status of the first check a request fails, in the documented order',
    async (faults) => {
      const reply = await call(request(new Set(faults)));
      const first = ORDER.find((fault) => faults.includes(fault)) as Fault;
      expect(reply.statusCode).toBe(FAULTS[first]);
    },
  );
});
