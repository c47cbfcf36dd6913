import { randomUUID } from 'node:crypto';
import {
  createServer,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type Http2Session,
} from 'node:http2';

/** One scripted HTTP reply: status, headers and JSON body, sent after `delayMs`. */
export interface ScriptedReply {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
  delayMs?: number;
}

/** A request the server received: the model id from the path, and the parsed JSON body. */
export interface RecordedRequest {
  method: string;
  path: string;
  modelId: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export interface ConverseServer {
  /** Base URL to give the SDK as `endpoint`. */
  url: string;
  requests: RecordedRequest[];
  /** Sets the reply for every request from now on (SDK retries see the same reply). */
  reply(next: ScriptedReply): void;
  close(): Promise<void>;
}

/** A successful Converse reply, as Bedrock Runtime sends it. */
export function converseText(
  text: string,
  options: {
    stopReason?: string;
    usage?: { inputTokens: number; outputTokens: number; totalTokens: number };
    delayMs?: number;
  } = {},
): ScriptedReply {
  return {
    status: 200,
    body: {
      output: { message: { role: 'assistant', content: [{ text }] } },
      stopReason: options.stopReason ?? 'end_turn',
      usage: options.usage ?? { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
      metrics: { latencyMs: 42 },
    },
    ...(options.delayMs === undefined ? {} : { delayMs: options.delayMs }),
  };
}

/**
 * An error the way the restJson1 protocol reports it: the SDK takes the error name from the
 * `x-amzn-errortype` header (then the body's `code`/`__type`) and the message from the body.
 */
export function converseError(
  status: number,
  errorType: string,
  message: string,
  headers: Record<string, string> = {},
): ScriptedReply {
  return { status, headers: { 'x-amzn-errortype': errorType, ...headers }, body: { message } };
}

const CONVERSE_PATH = /^\/model\/([^/]+)\/converse$/;

async function readBody(request: Http2ServerRequest): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return text;
  }
}

function send(response: Http2ServerResponse, { status, headers = {}, body }: ScriptedReply): void {
  if (response.stream.destroyed || response.writableEnded) return;
  response.writeHead(status, {
    'content-type': 'application/json',
    'x-amzn-requestid': randomUUID(),
    ...headers,
  });
  response.end(JSON.stringify(body));
}

/**
 * Starts a local server on 127.0.0.1 speaking Bedrock Runtime's `POST /model/{modelId}/converse`.
 * It speaks HTTP/2 without TLS (h2c), since the Bedrock Runtime client's request handler is HTTP/2 only.
 */
export async function startConverseServer(): Promise<ConverseServer> {
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const sessions = new Set<Http2Session>();
  let next: ScriptedReply = converseError(500, 'InternalServerException', 'No reply was scripted');

  const server = createServer((request, response) => {
    void (async () => {
      const path = (request.url ?? '/').split('?')[0] ?? '/';
      const encodedModelId = CONVERSE_PATH.exec(path)?.[1];
      const modelId = encodedModelId === undefined ? undefined : decodeURIComponent(encodedModelId);
      const body = await readBody(request);
      requests.push({ method: request.method ?? '', path, modelId, headers: request.headers, body });
      if (request.method !== 'POST' || modelId === undefined) {
        send(response, converseError(404, 'UnknownOperationException', `No operation at ${path}`));
        return;
      }
      const reply = next;
      if (!reply.delayMs) {
        send(response, reply);
        return;
      }
      const timer = setTimeout(() => {
        timers.delete(timer);
        send(response, reply);
      }, reply.delayMs);
      timers.add(timer);
    })();
  });

  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('Converse server has no TCP address');

  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    reply(scripted) {
      next = scripted;
    },
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      // The SDK keeps its HTTP/2 session open; close() alone would wait for it.
      for (const session of sessions) session.destroy();
      return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
