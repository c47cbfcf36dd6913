import type { GeneratorConfig } from '../config.ts';
import { createExtractiveGenerator } from './extractive.ts';
import type { Generator } from './types.ts';

/** The configured generator; the Bedrock SDK is loaded only when Bedrock is configured. */
export async function createGenerator(config: GeneratorConfig): Promise<Generator> {
  if (config.kind === 'extractive') return createExtractiveGenerator();
  const { createBedrockClient, createBedrockGenerator } = await import('./bedrock.ts');
  const client = createBedrockClient({ region: config.region, endpoint: config.endpoint });
  return createBedrockGenerator({ client, modelId: config.modelId, timeoutMs: config.timeoutMs });
}
