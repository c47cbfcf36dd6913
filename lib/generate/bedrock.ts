import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import * as v from 'valibot';
import { toGeneratorError } from './bedrock-errors.ts';
import { GeneratorError } from './errors.ts';
import { buildConversePrompt } from './prompt.ts';
import type { Generator, GeneratorOutput, StopReason } from './types.ts';

export interface BedrockClientOptions {
  region: string;
  /** A local Converse server's URL (tests); then fixed local credentials are used. */
  endpoint?: string | undefined;
  /** Per-attempt time limit; the generator's own `timeoutMs` bounds the whole call. */
  requestTimeoutMs?: number;
}

/** A Bedrock Runtime client (HTTP/2, the SDK's handler for it) with one retry and a per-attempt time-out. */
export function createBedrockClient({
  region,
  endpoint,
  requestTimeoutMs = 10_000,
}: BedrockClientOptions): BedrockRuntimeClient {
  return new BedrockRuntimeClient({
    region,
    maxAttempts: 2,
    requestHandler: { requestTimeout: requestTimeoutMs },
    ...(endpoint ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
}

export interface BedrockGeneratorOptions {
  client: BedrockRuntimeClient;
  modelId: string;
  /** Time limit for the whole call, retries included. */
  timeoutMs: number;
}

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));

// Only what the service relies on; other fields (metrics, trace, …) are ignored.
const ConverseReply = v.object({
  output: v.object({
    message: v.object({
      role: v.literal('assistant'),
      content: v.array(v.object({ text: v.optional(v.string()) })),
    }),
  }),
  stopReason: v.string(),
  usage: v.object({ inputTokens: Count, outputTokens: Count, totalTokens: Count }),
});

// `model_context_window_exceeded` ends the answer for lack of room, as `max_tokens` does. `tool_use`,
// `malformed_*` and unknown reasons leave no usable answer (no tools are offered): a GeneratorError.
const STOP_REASONS: Readonly<Record<string, StopReason>> = {
  end_turn: 'end_turn',
  max_tokens: 'max_tokens',
  model_context_window_exceeded: 'max_tokens',
  stop_sequence: 'stop_sequence',
  guardrail_intervened: 'guardrail_intervened',
  content_filtered: 'content_filtered',
};

/** Maps a Converse reply to the generator output, refusing a reply of the wrong shape or stop reason. */
export function toGeneratorOutput(reply: unknown, model: string): GeneratorOutput {
  const parsed = v.safeParse(ConverseReply, reply);
  if (!parsed.success) {
    throw new GeneratorError('Bedrock Converse reply has an unexpected shape', {
      cause: new v.ValiError(parsed.issues),
    });
  }
  const { output, stopReason, usage } = parsed.output;
  const mapped = STOP_REASONS[stopReason];
  if (!mapped) throw new GeneratorError(`Bedrock stopped for an unsupported reason: ${stopReason}`);
  const answer = output.message.content.map((block) => block.text ?? '').join('');
  return { answer, model, stopReason: mapped, usage };
}

/** A generator that asks a Bedrock model through the Converse API, within `timeoutMs`. */
export function createBedrockGenerator({ client, modelId, timeoutMs }: BedrockGeneratorOptions): Generator {
  return {
    model: modelId,
    async generate({ query, items, maxTokens, temperature }) {
      const command = new ConverseCommand({
        modelId,
        ...buildConversePrompt({ query, items }),
        inferenceConfig: { maxTokens, temperature },
      });
      // Inside the SDK's retry loop, so the last attempt's error is known even if the time limit ends a retry wait.
      const lastAttempt: { error?: unknown } = {};
      command.middlewareStack.add(
        (next) => async (args) => {
          try {
            return await next(args);
          } catch (error) {
            lastAttempt.error = error;
            throw error;
          }
        },
        { step: 'finalizeRequest', priority: 'low', name: 'rememberLastAttemptError' },
      );
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), timeoutMs);
      let reply: unknown;
      try {
        reply = await client.send(command, { abortSignal: controller.signal });
      } catch (error) {
        throw toGeneratorError({
          error,
          lastAttemptError: lastAttempt.error,
          aborted: controller.signal.aborted,
          timeoutMs,
        });
      } finally {
        clearTimeout(timer);
      }
      return toGeneratorOutput(reply, modelId);
    },
  };
}
