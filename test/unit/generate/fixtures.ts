import type { ContextItem } from '../../../lib/generate/types.ts';

/** Three retrieved items in rank order, as the generate handler hands them over. */
export const items: readonly ContextItem[] = [
  {
    ref: 1,
    itemId: 42,
    name: 'Trail Boot',
    description: 'Waterproof hiking boot with a grippy sole. Breathable lining keeps feet dry.',
    tags: ['outdoor', 'footwear'],
    score: 7.4312,
  },
  {
    ref: 2,
    itemId: 7,
    name: 'Rain Jacket',
    description: 'A light jacket for rainy hikes. Packs into its own pocket.',
    tags: ['outdoor'],
    score: 5.1,
  },
  {
    ref: 3,
    itemId: 9,
    name: 'Camp Mug',
    description: 'Enamel mug for coffee.',
    tags: ['kitchen'],
    score: 1.25,
  },
];
