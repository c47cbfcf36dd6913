import { describe, expect, it } from 'vitest';
import {
  B,
  idf,
  K1,
  queryWeights,
  saturation,
  termFrequencies,
  termScore,
} from '../../../../lib/search/format/bm25.ts';

describe('bm25 functions', () => {
  it('uses the contract parameters', () => {
    expect({ K1, B }).toStrictEqual({ K1: 1.2, B: 0.75 });
  });

  it.each([
    // ln(1 + (10 − 1 + 0.5) / (1 + 0.5)) = ln(7.3333…)
    [10, 1, 1.992430164690206],
    // ln(1 + 0.5 / 10.5) = ln(1.047619…): a term in every document still scores a little
    [10, 10, 0.04652001563489282],
    // ln(1 + 500.5 / 500.5) = ln 2
    [1000, 500, Math.LN2],
  ])('idf(N = %i, n = %i) = %f', (docCount, docFreq, expected) => {
    expect(idf(docCount, docFreq)).toBeCloseTo(expected, 12);
  });

  it.each([
    // average length: 2 / (2 + 1.2)
    [{ tf: 2, dl: 10, avgdl: 10 }, 0.625],
    // twice the average: 1 / (1 + 1.2 · (0.25 + 1.5)) = 1 / 3.1
    [{ tf: 1, dl: 20, avgdl: 10 }, 1 / 3.1],
    // half the average: 3 / (3 + 1.2 · (0.25 + 0.375)) = 3 / 3.75
    [{ tf: 3, dl: 5, avgdl: 10 }, 0.8],
  ])('saturation(%o) = %f', (term, expected) => {
    expect(saturation(term)).toBeCloseTo(expected, 12);
  });

  it('scores a term as idf · tf · (k1 + 1) / (tf + k1 · (1 − b + b · dl / avgdl))', () => {
    // 2 · 2.2 / 3.2 = 1.375, times idf 1.5
    expect(termScore({ tf: 2, dl: 10, avgdl: 10, idf: 1.5 })).toBeCloseTo(2.0625, 12);
    for (const [tf, dl, avgdl, termIdf] of [
      [1, 7, 12.5, 0.3],
      [4, 100, 12.5, 2.7],
      [9, 3, 40, 5],
    ] as const) {
      const formula = (termIdf * tf * (1.2 + 1)) / (tf + 1.2 * (1 - 0.75 + (0.75 * dl) / avgdl));
      expect(termScore({ tf, dl, avgdl, idf: termIdf })).toBeCloseTo(formula, 12);
      expect(termScore({ tf, dl, avgdl, idf: termIdf })).toBeCloseTo(
        termIdf * 2.2 * saturation({ tf, dl, avgdl }),
        12,
      );
    }
  });

  it('keeps saturation below 1 however often a term occurs', () => {
    expect(saturation({ tf: 1e6, dl: 1e6, avgdl: 10 })).toBeLessThan(1);
  });

  it('counts term frequencies in first-occurrence order', () => {
    expect([...termFrequencies(['wing', 'flow', 'wing', 'lift', 'wing'])]).toStrictEqual([
      ['wing', 3],
      ['flow', 1],
      ['lift', 1],
    ]);
    expect(termFrequencies([])).toStrictEqual(new Map());
  });

  it('weighs a repeated query term by its number of occurrences', () => {
    expect([...queryWeights(['boot', 'hike', 'boot'])]).toStrictEqual([
      ['boot', 2],
      ['hike', 1],
    ]);
  });
});
