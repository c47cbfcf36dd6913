// Issue #6, part 1: token attacks end to end over HTTP. Each gets exactly the contract's status and
// WWW-Authenticate header (§3), and none reaches the table: every attack is sent to create and delete, and
// afterwards the target item is unchanged and no item carries an attack's name.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { mintToken } from '../../../scripts/local/issuer.ts';
import { INSUFFICIENT_SCOPE, INVALID_TOKEN, REALM } from '../../hardening/contract.ts';
import { errorReply, httpClient, listUpTo, pool, type Reply, summary } from '../../hardening/http.ts';
import { invalidTokenAttacks } from '../../hardening/tokens.ts';
import { stack, token, tokenFor } from '../../support/stack.ts';

const request = httpClient(stack.baseUrl);
const editor = tokenFor('editor');
const admin = tokenFor('admin');
const reader = tokenFor('reader');
const MARK = `attack-${randomUUID()}`;

const challenge = (reply: Reply) => ({ ...summary(reply), auth: reply.headers.get('www-authenticate') });
const unauthorized = (auth: string) => ({ ...errorReply(401, { error: 'Unauthorized' }), auth });
const forbidden = { ...errorReply(403, { error: 'Forbidden' }), auth: INSUFFICIENT_SCOPE };

interface Item {
  id: number;
  name: string;
}

let target: Item;

async function create(name: string): Promise<Item> {
  const reply = await request('POST', '/items', { token: editor, body: { name } });
  expect(reply.status).toBe(201);
  return reply.body as Item;
}

/** Sends one Authorization value to create, delete, read and retrieve. */
function sendEverywhere(authorization: string, name: string) {
  const headers = { authorization };
  return {
    create: () => request('POST', '/items', { headers, body: { name: `${MARK} ${name}` } }),
    delete: () => request('DELETE', `/items/${target.id}`, { headers }),
    read: () => request('GET', `/items/${target.id}`, { headers }),
    retrieve: () => request('POST', '/retrieve', { headers, body: { query: 'boot' } }),
  };
}

beforeAll(async () => {
  target = (await request('POST', '/items', { token: editor, body: { name: `${MARK} target` } }))
    .body as Item;
});

describe('token attacks over HTTP (contract §3)', () => {
  const attacks = invalidTokenAttacks(stack.issuer);

  it.each(attacks.map((attack) => [attack.name, attack.authorization]))(
    'refuses %s with 401 error="invalid_token" on create, delete, read and retrieve',
    async (name, authorization) => {
      const send = sendEverywhere(authorization, name);
      for (const reply of [
        await send.create(),
        await send.delete(),
        await send.read(),
        await send.retrieve(),
      ]) {
        expect(challenge(reply)).toStrictEqual(unauthorized(INVALID_TOKEN));
      }
    },
  );

  it('answers a request without credentials with 401 and the bare challenge on restricted routes only', async () => {
    const noAuth = (method: string, path: string, body?: unknown) =>
      request(method, path, body === undefined ? {} : { body });
    expect(challenge(await noAuth('POST', '/items', { name: `${MARK} anonymous` }))).toStrictEqual(
      unauthorized(REALM),
    );
    expect(challenge(await noAuth('DELETE', `/items/${target.id}`))).toStrictEqual(unauthorized(REALM));
    expect(challenge(await noAuth('POST', '/retrieve', { query: 'boot' }))).toStrictEqual(
      unauthorized(REALM),
    );
    expect((await noAuth('GET', `/items/${target.id}`)).status).toBe(200);
  });

  it('accepts the bearer scheme in any case with a valid token', async () => {
    const created = await request('POST', '/items', {
      headers: { authorization: `bearer ${editor}` },
      body: { name: 'lowercase bearer' },
    });
    expect(created.status).toBe(201);
    const id = (created.body as Item).id;
    const deleted = await request('DELETE', `/items/${id}`, {
      headers: { authorization: `BEARER ${admin}` },
    });
    expect(deleted.status).toBe(204);
  });

  it('refuses two Authorization values, as API Gateway joins them, with 400 on create and delete', async () => {
    for (const authorization of [
      `Bearer ${admin}, Bearer ${admin}`,
      `Bearer ${admin},Bearer ${editor}`,
      `Bearer ${admin}, Basic YWRtaW46YWRtaW4=`,
      `Basic YWRtaW46YWRtaW4=, Bearer ${admin}`,
    ]) {
      const send = sendEverywhere(authorization, 'two values');
      for (const reply of [await send.create(), await send.delete()]) {
        expect(summary(reply)).toStrictEqual(errorReply(400, { error: 'Malformed Authorization header' }));
      }
    }
  });

  it('matches roles only as whole strings: near-admin groups get 403 on delete and create', async () => {
    for (const groups of [
      ['superadmin'],
      ['Admin'],
      ['ADMIN'],
      ['admins'],
      [' admin'],
      ['admin '],
      ['reader'],
    ]) {
      const send = sendEverywhere(`Bearer ${token({ groups })}`, `groups ${groups.join()}`);
      expect(challenge(await send.delete()), JSON.stringify(groups)).toStrictEqual(forbidden);
      expect(challenge(await send.create()), JSON.stringify(groups)).toStrictEqual(forbidden);
    }
    // A near-admin group beside a real one grants only the real one.
    const editorAndAdminish = token({ groups: ['editor', 'Admin', 'superadmin'] });
    expect(
      challenge(await request('DELETE', `/items/${target.id}`, { token: editorAndAdminish })),
    ).toStrictEqual(forbidden);
  });

  it("ignores serverless-offline's authorizer override header: only the token counts", async () => {
    const override = {
      'sls-offline-authorizer-override': JSON.stringify({
        jwt: { claims: { sub: 'x', 'cognito:groups': ['admin'] }, scopes: [] },
        claims: { 'cognito:groups': ['admin'] },
      }),
    };
    expect(
      challenge(await request('POST', '/items', { headers: override, body: { name: `${MARK} override` } })),
    ).toStrictEqual(unauthorized(REALM));
    expect(challenge(await request('DELETE', `/items/${target.id}`, { headers: override }))).toStrictEqual(
      unauthorized(REALM),
    );
    expect(
      challenge(await request('DELETE', `/items/${target.id}`, { token: reader, headers: override })),
    ).toStrictEqual(forbidden);
    expect(
      challenge(
        await request('POST', '/items', { token: token(), headers: override, body: { name: `${MARK} o` } }),
      ),
    ).toStrictEqual(forbidden);
  });

  it('refuses many unknown kids fast, each with 401, without slowing down', async () => {
    const tokens = Array.from({ length: 60 }, () =>
      mintToken(
        { ...stack.issuer, privateJwk: { ...stack.issuer.privateJwk, kid: randomUUID() } },
        {
          groups: ['admin'],
        },
      ),
    );
    const replies = await pool(
      6,
      tokens.map((t) => () => request('DELETE', `/items/${target.id}`, { token: t })),
    );
    for (const reply of replies) expect(challenge(reply)).toStrictEqual(unauthorized(INVALID_TOKEN));
    // No JWKS request per token: with one, each refusal would wait on the network. A generous bound.
    expect(Math.max(...replies.map((reply) => reply.ms))).toBeLessThan(5_000);
    expect((await request('GET', `/items/${target.id}`, { token: admin })).status).toBe(200);
  });

  it('let none of the attacks reach the table: the target is unchanged and no attack created an item', async () => {
    const read = await request('GET', `/items/${target.id}`);
    expect(summary(read)).toStrictEqual({ status: 200, contentType: expect.any(String), body: target });
    const sentinel = await create(`${MARK} sentinel`);
    const marked = (await listUpTo(request, sentinel.id))
      .map((item) => (item as Item).name)
      .filter((name) => name.startsWith(MARK));
    expect(marked.sort()).toStrictEqual([`${MARK} sentinel`, `${MARK} target`]);
  });
});
