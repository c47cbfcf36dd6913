import * as v from 'valibot';

/**
 * A term map is stored as JSON text: as a DynamoDB map, a term like `constructor` breaks the SDK's marshalling
 * (it takes the object for a class instance), and valibot's `record` drops such keys when reading it back.
 */
export const TermsText = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const parsed: unknown = JSON.parse(dataset.value);
    const entries =
      parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? Object.entries(parsed) : undefined;
    if (!entries?.every(([, tf]) => Number.isSafeInteger(tf) && tf > 0)) {
      addIssue({ message: 'terms must map terms to counts' });
      return NEVER;
    }
    return Object.fromEntries(entries) as Record<string, number>;
  }),
);
/** Parses a stored term map (JSON text) into own-key counts. */
export const parseTerms = (text: string): Record<string, number> => v.parse(TermsText, text);
