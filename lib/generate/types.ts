/** One retrieved item handed to a generator; `ref` is its 1-based rank, the `n` of its `[n]` marker. */
export interface ContextItem {
  ref: number;
  itemId: number;
  name: string;
  description: string;
  tags: readonly string[];
  score: number;
}

/** What a generator answers from: the question and the items retrieved for it, in rank order. */
export interface GeneratorInput {
  query: string;
  items: readonly ContextItem[];
  maxTokens: number;
  temperature: number;
}

export type StopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'guardrail_intervened'
  | 'content_filtered';

export interface GeneratorOutput {
  answer: string;
  model: string;
  stopReason: StopReason;
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
}

/** Writes an answer from the given items; the extractive generator and Bedrock both implement it. */
export interface Generator {
  readonly model: string;
  generate(input: GeneratorInput): Promise<GeneratorOutput>;
}
