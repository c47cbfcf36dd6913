import { describe, expect, it } from 'vitest';
import { groundAnswer, NO_MATCH_ANSWER } from '../../../lib/generate/citations.ts';
import { createExtractiveGenerator, splitSentences } from '../../../lib/generate/extractive.ts';
import { countTokens, lowercaseWords, truncateToTokens } from '../../../lib/generate/tokens.ts';
import type { ContextItem, GeneratorInput } from '../../../lib/generate/types.ts';
import { items } from './fixtures.ts';

const generator = createExtractiveGenerator();
const query = 'waterproof boot for rainy hikes';
const input: GeneratorInput = { query, items, maxTokens: 512, temperature: 0 };
// Best first: two sentences with two query terms (ref 1 before ref 2), then "Trail Boot" with one.
const fullAnswer =
  'Waterproof hiking boot with a grippy sole [1]. A light jacket for rainy hikes [2]. Trail Boot [1].';

function inputTokensOf({ query, items }: GeneratorInput): number {
  return (
    countTokens(query) +
    items.reduce(
      (sum, item) =>
        sum +
        countTokens(item.name) +
        countTokens(item.description) +
        item.tags.reduce((tags, tag) => tags + countTokens(tag), 0),
      0,
    )
  );
}

describe('token counting', () => {
  it.each([
    ['Trail Boot is waterproof [1].', 8],
    ["it's 3.5 kg!", 8],
    ['Café   über\n', 2],
    ['', 0],
    ['   ', 0],
  ])('counts %j as %i tokens', (text, expected) => {
    expect(countTokens(text)).toBe(expected);
  });

  it('truncates a text to its first n tokens', () => {
    expect(truncateToTokens('Waterproof hiking boot, grippy sole.', 4)).toBe('Waterproof hiking boot,');
    expect(truncateToTokens('Waterproof boot', 10)).toBe('Waterproof boot');
    expect(truncateToTokens('Waterproof boot', 0)).toBe('');
  });

  it('tokenizes into lowercase words', () => {
    expect(lowercaseWords("Rain-proof JACKET, it's 2x")).toStrictEqual([
      'rain',
      'proof',
      'jacket',
      'it',
      's',
      '2x',
    ]);
  });
});

describe('sentence splitting', () => {
  it('splits at sentence ends and line breaks, dropping markers already in the text', () => {
    expect(splitSentences('Warm. Dry!  Light?\nSee [3] also. 3.5 kg')).toStrictEqual([
      'Warm.',
      'Dry!',
      'Light?',
      'See also.',
      '3.5 kg',
    ]);
  });
});

describe('extractive generator', () => {
  it('answers with the best matching sentences, best first, each followed by its marker', async () => {
    const output = await generator.generate(input);
    const outputTokens = countTokens(fullAnswer);
    expect(output).toStrictEqual({
      answer: fullAnswer,
      model: 'extractive-v1',
      stopReason: 'end_turn',
      usage: {
        inputTokens: inputTokensOf(input),
        outputTokens,
        totalTokens: inputTokensOf(input) + outputTokens,
      },
    });
  });

  it('gives the same output for the same input', async () => {
    const first = await generator.generate(input);
    const second = await createExtractiveGenerator().generate({ ...input, temperature: 1 });
    expect(second).toStrictEqual(first);
  });

  it('writes only markers that resolve to the given items', async () => {
    const { answer } = await generator.generate(input);
    expect(groundAnswer(answer, items)).toStrictEqual({
      answer,
      citations: [
        { ref: 1, itemId: 42, name: 'Trail Boot', score: 7.4312 },
        { ref: 2, itemId: 7, name: 'Rain Jacket', score: 5.1 },
      ],
    });
  });

  it('stops before the sentence that would exceed maxTokens and reports max_tokens', async () => {
    // The first two sentences are 11 + 10 tokens.
    const output = await generator.generate({ ...input, maxTokens: 21 });
    expect(output).toStrictEqual({
      answer: 'Waterproof hiking boot with a grippy sole [1]. A light jacket for rainy hikes [2].',
      model: 'extractive-v1',
      stopReason: 'max_tokens',
      usage: { inputTokens: inputTokensOf(input), outputTokens: 21, totalTokens: inputTokensOf(input) + 21 },
    });
  });

  it('truncates the first sentence at the limit, keeping its marker when it fits', async () => {
    const output = await generator.generate({ ...input, maxTokens: 6 });
    expect([output.answer, output.stopReason, output.usage.outputTokens]).toStrictEqual([
      'Waterproof hiking boot [1]',
      'max_tokens',
      6,
    ]);
    const tiny = await generator.generate({ ...input, maxTokens: 2 });
    expect([tiny.answer, tiny.stopReason, tiny.usage.outputTokens]).toStrictEqual([
      'Waterproof hiking',
      'max_tokens',
      2,
    ]);
  });

  it("answers from the top item's first description sentence when no sentence shares a query term", async () => {
    const output = await generator.generate({ ...input, query: 'zebra quartz' });
    expect([output.answer, output.stopReason]).toStrictEqual([
      'Waterproof hiking boot with a grippy sole [1].',
      'end_turn',
    ]);
  });

  it('breaks ties between equally good sentences by ref, then by position', async () => {
    const twins: ContextItem[] = [
      {
        ref: 2,
        itemId: 5,
        name: 'Tent B',
        description: 'Sleeps two. Sleeps two campers.',
        tags: [],
        score: 1,
      },
      { ref: 1, itemId: 4, name: 'Tent A', description: 'Sleeps two.', tags: [], score: 2 },
    ];
    const output = await generator.generate({ ...input, query: 'sleeps', items: twins });
    expect(output.answer).toBe('Sleeps two [1]. Sleeps two [2]. Sleeps two campers [2].');
  });

  it('never copies a marker that was already in the item text', async () => {
    const tricky: ContextItem[] = [
      { ref: 1, itemId: 4, name: 'Stove', description: 'Boils water fast [7] [2, 3].', tags: [], score: 1 },
    ];
    const output = await generator.generate({ ...input, query: 'boils water', items: tricky });
    expect(output.answer).toBe('Boils water fast [1].');
  });

  it('answers with the fixed no-match answer when it is given no items', async () => {
    const output = await generator.generate({ ...input, items: [] });
    expect([output.answer, output.stopReason]).toStrictEqual([NO_MATCH_ANSWER, 'end_turn']);
  });
});
