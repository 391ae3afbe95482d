import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A scripted OpenAI-compatible server on 127.0.0.1 (random port) for tests: real HTTP, canned replies.
 * Rules are tried in order against the prompt (all message contents of a request joined); the first
 * rule that matches and has uses left answers. A reply can be a chat completion with any content
 * (valid JSON, garbage), an HTTP error with headers (429 + Retry-After, 500), a raw body, or a hang
 * that never answers, so the client's timeout fires. Nothing here touches the network beyond loopback.
 */

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body (chat requests), or null. */
  body: { model?: string; messages?: { role: string; content: string }[]; response_format?: unknown; temperature?: number } | null;
  /** Every message's content, joined: what rules match against. */
  prompt: string;
}

export interface ScriptReply {
  /** HTTP status, 200 by default. */
  status?: number;
  headers?: Record<string, string>;
  /** The assistant message content of a chat completion. */
  content?: string;
  /** Shorthand: the content is this value as JSON. */
  json?: unknown;
  /** A raw response body, sent as is instead of a chat completion. */
  raw?: string;
  /** The usage block; null leaves it out. Default: 100 prompt tokens, 20 completion tokens. */
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
  /** Never answer: the connection stays open until the client gives up or the server closes. */
  hang?: boolean;
  /** Answer only once this settles (a test releases a slow LLM's reply when it chooses). */
  after?: Promise<unknown>;
}

export type Responder = (req: RecordedRequest) => ScriptReply;
export type Match = string | RegExp | ((req: RecordedRequest) => boolean);

interface Rule {
  match: Match;
  reply: ScriptReply | Responder;
  left: number;
}

export interface LlmServer {
  /** Base URL as a client is configured with it: http://127.0.0.1:PORT/v1 */
  readonly url: string;
  readonly model: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Chat-completion requests only. */
  chats(): RecordedRequest[];
  /** Adds a rule (after the existing ones); `times` limits how often it answers (default: always). */
  on(match: Match, reply: ScriptReply | Responder, times?: number): LlmServer;
  /** Forgets every rule and recorded request. */
  reset(): void;
  /** Whether GET /v1/models answers with the model list (true) or 404 (false). */
  listModels: boolean;
  close(): Promise<void>;
}

function matches(m: Match, req: RecordedRequest): boolean {
  if (typeof m === 'string') return req.prompt.includes(m);
  if (m instanceof RegExp) return m.test(req.prompt);
  return m(req);
}

export async function startLlmServer(o: { model?: string } = {}): Promise<LlmServer> {
  const model = o.model ?? 'scripted-model';
  const rules: Rule[] = [];
  const requests: RecordedRequest[] = [];
  let completions = 0;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: RecordedRequest['body'] = null;
      try {
        body = text ? (JSON.parse(text) as RecordedRequest['body']) : null;
      } catch {
        body = null;
      }
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body,
        prompt: (body?.messages ?? []).map((m) => m.content).join('\n\n'),
      };
      requests.push(recorded);

      if (recorded.method === 'GET' && recorded.path === '/v1/models') {
        if (!api.listModels) {
          res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
          return;
        }
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ object: 'list', data: [{ id: model, object: 'model', owned_by: 'test' }] }));
        return;
      }
      if (recorded.method !== 'POST' || recorded.path !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"no such route"}}');
        return;
      }
      const rule = rules.find((r) => r.left > 0 && matches(r.match, recorded));
      if (rule) rule.left--;
      const reply: ScriptReply = rule
        ? typeof rule.reply === 'function'
          ? rule.reply(recorded)
          : rule.reply
        : {
            status: 500,
            raw: JSON.stringify({ error: { message: `no scripted reply for this prompt: ${recorded.prompt.slice(0, 80)}` } }),
          };
      if (reply.hang) return; // leave the request open
      if (reply.after)
        void reply.after.then(
          () => answer(res, reply),
          () => answer(res, reply),
        );
      else answer(res, reply);
    });
  });
  function answer(res: http.ServerResponse, reply: ScriptReply): void {
    if (res.destroyed) return;
    const status = reply.status ?? 200;
    const headers = { 'content-type': 'application/json', ...reply.headers };
    if (reply.raw !== undefined || status !== 200) {
      res.writeHead(status, headers).end(reply.raw ?? JSON.stringify({ error: { message: `scripted ${status}` } }));
      return;
    }
    const content = reply.content ?? JSON.stringify(reply.json ?? {});
    const usage = reply.usage === undefined ? { prompt_tokens: 100, completion_tokens: 20 } : reply.usage;
    res.writeHead(200, headers).end(
      JSON.stringify({
        id: `chatcmpl-${++completions}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        ...(usage ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } : {}),
      }),
    );
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const api: LlmServer = {
    url: `http://127.0.0.1:${port}/v1`,
    model,
    requests,
    listModels: true,
    chats: () => requests.filter((r) => r.path === '/v1/chat/completions'),
    on(match, reply, times = Number.POSITIVE_INFINITY) {
      rules.push({ match, reply, left: times });
      return api;
    },
    reset() {
      rules.length = 0;
      requests.length = 0;
    },
    async close() {
      // Hanging requests hold their sockets open; close them so the server can stop.
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return api;
}

/** A port nothing listens on (bound, then released), for "the LLM is down" tests. */
export async function closedPortUrl(): Promise<string> {
  const s = http.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}
