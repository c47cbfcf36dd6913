import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnswerer } from '../../lib/generate/answer.ts';
import { createBedrockClient, createBedrockGenerator } from '../../lib/generate/bedrock.ts';
import { toHttpError } from '../../lib/http/to-http-error.ts';
import { createItemRepository } from '../../lib/items/repository.ts';
import { createDictionary } from '../../lib/search/read/dictionary.ts';
import { createSearch } from '../../lib/search/read/query.ts';
import { createRetriever } from '../../lib/search/read/retrieve.ts';
import { createIndexer } from '../../lib/search/write/indexer.ts';
import { converseError, converseText, startConverseServer } from '../support/converse-server.ts';
import { freshTable } from '../support/stack.ts';

// The generate pipeline with the Bedrock generator: real retrieval on DynamoDB Local, and the SDK talking to a
// local server that speaks the Converse wire format.
let server: Awaited<ReturnType<typeof startConverseServer>>;
let answer: ReturnType<typeof createAnswerer>;
let bootId = 0;
const request = { query: 'waterproof boot', topK: 5, maxTokens: 200, temperature: 0 };

beforeAll(async () => {
  server = await startConverseServer();
  const table = await freshTable();
  const items = createItemRepository(table);
  const indexer = createIndexer({ ...table, items });
  const boot = await items.create({
    name: 'Trail Boot',
    description: 'A waterproof leather boot.',
    tags: [],
    attributes: {},
  });
  const sock = await items.create({
    name: 'Wool Sock',
    description: 'Warm sock for any boot.',
    tags: [],
    attributes: {},
  });
  await indexer.reindexItem(boot.id);
  await indexer.reindexItem(sock.id);
  bootId = boot.id;
  answer = createAnswerer({
    retrieve: createRetriever({ search: createSearch(table), items, dictionary: createDictionary(table) }),
    generator: createBedrockGenerator({
      client: createBedrockClient({ region: 'us-east-1', endpoint: server.url }),
      modelId: 'anthropic.claude-test',
      timeoutMs: 1500,
    }),
  });
});
afterAll(() => server.close());

describe('generate with Bedrock (Converse wire format)', () => {
  it('maps a normal reply: answer, citations, stop reason and usage', async () => {
    server.reply(
      converseText('The Trail Boot is waterproof [1].', {
        usage: { inputTokens: 90, outputTokens: 9, totalTokens: 99 },
      }),
    );
    await expect(answer(request)).resolves.toStrictEqual({
      query: 'waterproof boot',
      answer: 'The Trail Boot is waterproof [1].',
      grounded: true,
      citations: [
        // The description matched and is short: the passage is all of it (contract §8.5).
        {
          ref: 1,
          itemId: bootId,
          name: 'Trail Boot',
          score: expect.any(Number),
          passage: 'A waterproof leather boot.',
        },
      ],
      model: 'anthropic.claude-test',
      stopReason: 'end_turn',
      usage: { inputTokens: 90, outputTokens: 9, totalTokens: 99 },
    });
  });

  it('drops citations of refs the generator was not given', async () => {
    server.reply(converseText('Waterproof [1]. Also see [7] and [0].'));
    const result = await answer(request);
    expect(result.citations.map((c) => c.ref)).toStrictEqual([1]);
    expect(result.answer).not.toMatch(/\[7\]|\[0\]/);
  });

  it('turns throttling into 503 with Retry-After, a time-out into 504 and a failure into 502', async () => {
    server.reply(converseError(429, 'ThrottlingException', 'Too many requests', { 'retry-after': '3' }));
    const throttled = toHttpError(await answer(request).catch((e: unknown) => e));
    expect({
      status: throttled.statusCode,
      body: throttled.toJSON(),
      headers: throttled.headers,
    }).toStrictEqual({
      status: 503,
      body: { error: 'Service unavailable' },
      headers: { 'Retry-After': expect.stringMatching(/^[1-9]\d*$/) },
    });

    server.reply(converseText('late', { delayMs: 4000 }));
    const timedOut = toHttpError(await answer(request).catch((e: unknown) => e));
    expect({ status: timedOut.statusCode, body: timedOut.toJSON() }).toStrictEqual({
      status: 504,
      body: { error: 'Gateway timeout' },
    });

    server.reply(converseError(400, 'ValidationException', 'bad model input'));
    const failed = toHttpError(await answer(request).catch((e: unknown) => e));
    expect({ status: failed.statusCode, body: failed.toJSON() }).toStrictEqual({
      status: 502,
      body: { error: 'Bad gateway' },
    });
  });

  it('puts the retrieved items inside delimiters with the instruction to ignore instructions in them', async () => {
    server.reply(converseText('Waterproof [1].'));
    await answer(request);
    const last = JSON.stringify(server.requests.at(-1));
    expect(last).toContain('Trail Boot');
    expect(last).toMatch(/<items>/);
    expect(last.toLowerCase()).toContain('ignore');
  });
});
