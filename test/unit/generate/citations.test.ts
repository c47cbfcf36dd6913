import { describe, expect, it } from 'vitest';
import { groundAnswer, NO_MATCH_ANSWER } from '../../../lib/generate/citations.ts';
import { items } from './fixtures.ts';

const boot = { ref: 1, itemId: 42, name: 'Trail Boot', score: 7.4312 };
const jacket = { ref: 2, itemId: 7, name: 'Rain Jacket', score: 5.1 };
const mug = { ref: 3, itemId: 9, name: 'Camp Mug', score: 1.25 };

describe('groundAnswer', () => {
  it('keeps valid markers and cites their items in ascending ref order', () => {
    expect(groundAnswer('Pack the jacket [2]. The boot is waterproof [1].', items)).toStrictEqual({
      answer: 'Pack the jacket [2]. The boot is waterproof [1].',
      citations: [boot, jacket],
    });
  });

  it('drops markers for refs it was not given from the text and from the citations', () => {
    expect(
      groundAnswer('The boot is waterproof [1]. It is gold [7]. Also [0] free [12] [1].', items),
    ).toStrictEqual({ answer: 'The boot is waterproof [1]. It is gold. Also free [1].', citations: [boot] });
  });

  it('lists only the refs that are cited, once each', () => {
    expect(groundAnswer('Mug [3]. Still the mug [3].', items)).toStrictEqual({
      answer: 'Mug [3]. Still the mug [3].',
      citations: [mug],
    });
  });

  it('splits a list marker and keeps only its valid refs', () => {
    expect(groundAnswer('Both keep you dry [2, 9, 1].', items)).toStrictEqual({
      answer: 'Both keep you dry [2] [1].',
      citations: [boot, jacket],
    });
  });

  it('tidies the whitespace a dropped marker leaves at the start of a line', () => {
    expect(groundAnswer('[8] Boot [1].\n[9] Mug [3].', items)).toStrictEqual({
      answer: 'Boot [1].\nMug [3].',
      citations: [boot, mug],
    });
  });

  it('cites nothing for an answer without markers or without items', () => {
    expect(groundAnswer('No markers here.', items)).toStrictEqual({
      answer: 'No markers here.',
      citations: [],
    });
    expect(groundAnswer('Boot [1].', [])).toStrictEqual({ answer: 'Boot.', citations: [] });
  });

  it('has a fixed answer for when retrieval found nothing', () => {
    expect(groundAnswer(NO_MATCH_ANSWER, [])).toStrictEqual({
      answer: 'None of the available items answer this question.',
      citations: [],
    });
  });
});
