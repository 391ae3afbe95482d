/**
 * The HTTP bridge: the renderer and the engine's contract on 127.0.0.1 only, guarded by a random
 * per-run token, so the journal runs in a normal browser tab (`nemori web`) and in the e2e tests.
 * Same contract, same validation and same errors as Electron's IPC (see dispatch.ts).
 *
 *   POST /api/call/:operation   JSON input → JSON output; errors are { error: { code, message } }
 *   GET  /api/events?token=     Server-Sent Events: each call's start/end and its progress, the model's download
 *   POST /api/import/upload?batch=UUID&name=FILE   raw file body, kept until the import below
 *   POST /api/import            { batch, ownerId?, format? } → importFiles on the uploaded files
 *   POST /mcp                   the MCP tools over Streamable HTTP (core/mcp), same token
 *   GET  /…                     the built renderer, under the app's Content-Security-Policy
 *
 * The same server, without the renderer, is how the holder of a data folder answers other processes
 * (`GET /api/ping`, streamed calls with their own ids: holder-protocol.ts).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import type { ImportFilesOutput } from '../api/contract.js';
import type { Engine } from '../engine/open-engine.js';
import { sameFolder, type HolderIdentity } from '../engine/holder.js';
import { NemoriError } from '../domain/errors.js';
import type { McpHttpHandler } from '../mcp/http.js';
import { authorizedScope, EVENTS_PATH, isLoopbackHost, isSameOriginOrNone, newToken, type Tokens } from './auth.js';
import { PERSON_ONLY_OPERATIONS } from '../api/companion-access-contract.js';
import { readJson } from './body.js';
import { createDispatcher, toWireError, type CallEngine } from '../api/dispatch.js';
import { createEventHub } from './sse.js';
import { CallIdHeader, HOLDER_HEADERS, NDJSON, PING_PATH, type StreamFrame } from './holder-protocol.js';
import { PAGE_HEADERS, serveStatic } from './static.js';
import { createUploadArea, type UploadedFile } from './uploads.js';
import type { CallResult, EngineEvent, WireError, WireErrorCode } from '../api/wire.js';

export interface WebServerOptions {
  /** The engine, or its opening (`nemori web` serves the tab while the model downloads; calls wait for it). */
  engine: Pick<Engine, 'call'> | Promise<Pick<Engine, 'call'>>;
  /** The built renderer (out/renderer); absent: the API only (a holder's service for other processes). */
  staticDir?: string | undefined;
  /** Who this process is as the holder of a data folder (answers `GET /api/ping`); null or absent: not a holder. */
  holder?: () => HolderIdentity | null;
  /** 0 or absent: any free port. */
  port?: number;
  /** Fixed token (tests); by default a new random one per run. */
  token?: string;
  /** Fixed companion-scoped token (tests); by default a new random one per run. */
  companionToken?: string;
  /** The largest uploaded file (default MAX_UPLOAD_BYTES). */
  maxUploadBytes?: number;
  /** Every engine event also goes here (the CLI prints progress). */
  onEvent?: (e: EngineEvent) => void;
  log?: (message: string, error?: unknown) => void;
}

export interface WebServer {
  /** Open this: `http://127.0.0.1:PORT/#token=…` (the token stays in the fragment, never sent in a request line). */
  readonly url: string;
  readonly origin: string;
  readonly port: number;
  /** The person's token: every operation. */
  readonly token: string;
  /** For companions (MCP clients, programs): memory operations only, never one that names a path or changes settings (403). */
  readonly companionToken: string;
  /** Sends an event not tied to a call (the embedding model's download) to every tab and `onEvent`. */
  emit(e: EngineEvent): void;
  /** API calls being answered now. */
  readonly inFlight: number;
  /** Stops listening. `drain`: calls being answered finish first; otherwise (or when called again without it) they are cut off. */
  close(o?: { drain?: boolean }): Promise<void>;
}

const JSON_LIMIT = 64 * 2 ** 20;
const API_HEADERS = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' };

const STATUS: Partial<Record<WireErrorCode, number>> = {
  INVALID_INPUT: 400,
  IMPORT_PARSE: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  UNKNOWN_OPERATION: 404,
  STORE_LOCKED: 409,
  MODEL_UNAVAILABLE: 503,
  ENGINE_UNAVAILABLE: 503,
};
export const statusFor = (code: WireErrorCode): number => STATUS[code] ?? 500;

/** `batch` names the uploaded files; everything else is importFiles input (checked by the contract), minus `paths`. */
const ImportRequest = z.looseObject({ batch: z.string() });

/** Every string of `value` with `rename` applied (the import report, whatever fields it grows). */
function mapStrings(value: unknown, rename: (s: string) => string): unknown {
  if (typeof value === 'string') return rename(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, rename));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, rename)]));
  return value;
}

/** The import report names files as the person chose them, never by their temporary paths. */
function withOriginalNames(out: unknown, files: UploadedFile[]): unknown {
  return mapStrings(out, (text) => files.reduce((t, f) => t.split(f.path).join(f.name), text));
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, API_HEADERS).end(JSON.stringify(body));
}
function sendError(res: ServerResponse, error: WireError): void {
  sendJson(res, statusFor(error.code), { error });
}
function sendResult(res: ServerResponse, result: CallResult): void {
  if (result.ok) sendJson(res, 200, result.value);
  else sendError(res, result.error);
}

/** A request header's single value. */
function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function decodedHome(value: string): string | null {
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}

/** Routes a companion-scoped token may not use: uploads (files onto this machine) and the person-only operations. */
function personOnly(route: string): boolean {
  if (route === '/api/import' || route === '/api/import/upload') return true;
  const op = /^\/api\/call\/([A-Za-z][\w-]*)$/.exec(route)?.[1];
  return op !== undefined && (PERSON_ONLY_OPERATIONS as readonly string[]).includes(op);
}

export async function startWebServer(o: WebServerOptions): Promise<WebServer> {
  const token = o.token ?? newToken();
  const tokens: Tokens = { person: token, companion: o.companionToken ?? newToken() };
  const log = o.log ?? ((m, e) => console.error(`[nemori web] ${m}`, e ?? ''));
  const hub = createEventHub();
  const uploads = await createUploadArea({ ...(o.maxUploadBytes ? { maxFileBytes: o.maxUploadBytes } : {}) });
  const call: CallEngine = async (name, input, options) => (await o.engine).call(name, input as never, options);
  // The model's download while the engine opens: a tab that connects meanwhile sees where it stands at once.
  let modelUnderway: EngineEvent | null = null;
  /** Streamed calls by id: their progress goes to their own response too. */
  const streams = new Map<string, (frame: StreamFrame) => void>();
  const emit = (e: EngineEvent) => {
    if (e.type === 'model') modelUnderway = e.state === 'downloading' || e.state === 'loading' ? e : null;
    if (e.type === 'progress') {
      const { operation, phase, done, total, facts } = e;
      streams.get(e.callId)?.({ type: 'progress', event: { operation, phase, done, total, ...(facts ? { facts } : {}) } });
    }
    hub.emit(e);
    o.onEvent?.(e);
  };
  const dispatcher = createDispatcher({ call, emit, log });
  // The MCP SDK is loaded by the first /mcp request: most processes that hold a folder (a CLI command,
  // `nemori web`) never get one, and loading it costs every start ~150 ms.
  let mcp: Promise<McpHttpHandler> | null = null;
  const mcpHandler = () =>
    (mcp ??= import('../mcp/http.js').then(({ mcpOverHttp }) =>
      mcpOverHttp({
        engine: { call: (name, input) => call(name, input, { onProgress: () => {}, callId: randomUUID() }) as never },
        log,
      }),
    ));
  let port = 0;
  let inFlight = 0;
  let closing: Promise<void> | null = null;
  let server: Server;

  /** One call answered as a stream of progress frames and its result; hanging up cancels it. */
  async function streamCall(res: ServerResponse, name: string, input: unknown, callId: string): Promise<void> {
    res.writeHead(200, { ...API_HEADERS, 'Content-Type': `${NDJSON}; charset=utf-8` });
    const write = (frame: StreamFrame) => {
      if (!res.writableEnded && !res.destroyed) res.write(`${JSON.stringify(frame)}\n`);
    };
    streams.set(callId, write);
    let answered = false;
    res.once('close', () => {
      if (answered) return;
      void call('cancelCall', { callId }, { callId: randomUUID(), onProgress: () => {} }).catch(() => {});
    });
    try {
      const result = await dispatcher.dispatch(name, input, callId);
      answered = true;
      write(result.ok ? { type: 'result', ok: true, value: result.value } : { type: 'result', ok: false, error: result.error });
      res.end();
    } finally {
      streams.delete(callId);
    }
  }

  /** A call from another process meant for a data folder this process does not hold (any more): not run. */
  function refusedHome(req: IncomingMessage, res: ServerResponse): boolean {
    const meant = header(req, HOLDER_HEADERS.home);
    if (meant === undefined) return false;
    const me = o.holder?.() ?? null;
    const home = decodedHome(meant);
    if (me && home !== null && sameFolder(home, me.home)) return false;
    res.setHeader(HOLDER_HEADERS.notRun, '1');
    sendJson(res, 409, {
      error: { code: 'ENGINE_UNAVAILABLE', message: me ? `this Nemori now holds ${me.home}` : 'this Nemori holds no data folder' },
    });
    return true;
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (!isSameOriginOrNone(req.headers.origin, port)) {
      sendError(res, { code: 'UNAUTHORIZED', message: 'requests from other sites are refused' });
      return;
    }
    const scope = authorizedScope(req, url, tokens);
    if (!scope) {
      sendError(res, { code: 'UNAUTHORIZED', message: 'missing or wrong token: open the link `nemori web` printed' });
      return;
    }
    const route = url.pathname;
    if (scope === 'companion' && personOnly(route)) {
      sendError(res, { code: 'FORBIDDEN', message: `${route}: a companion's token may not name files or change settings` });
      return;
    }
    if (route === '/mcp') {
      const handle = await mcpHandler();
      await handle(req, res);
      return;
    }
    if (req.method === 'GET' && route === EVENTS_PATH) {
      hub.attach(res, { 'X-Content-Type-Options': 'nosniff' }, modelUnderway ? [modelUnderway] : []);
      return;
    }
    if (req.method === 'GET' && route === PING_PATH) {
      const me = o.holder?.() ?? null;
      if (me) sendJson(res, 200, me);
      else sendError(res, { code: 'UNKNOWN_OPERATION', message: 'this Nemori holds no data folder' });
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { ...API_HEADERS, Allow: 'POST' }).end(JSON.stringify({ error: { code: 'INVALID_INPUT', message: 'use POST' } }));
      return;
    }
    const callMatch = /^\/api\/call\/([A-Za-z][\w-]*)$/.exec(route);
    if (callMatch) {
      if (refusedHome(req, res)) return;
      const given = header(req, HOLDER_HEADERS.callId);
      if (given !== undefined && !CallIdHeader.safeParse(given).success)
        throw new NemoriError('INVALID_INPUT', `${HOLDER_HEADERS.callId}: 1 to 128 letters, digits or . _ : -`);
      const input = await readJson(req, JSON_LIMIT);
      if (header(req, 'accept')?.includes(NDJSON)) await streamCall(res, callMatch[1]!, input, given ?? randomUUID());
      else sendResult(res, await dispatcher.dispatch(callMatch[1]!, input, given));
      return;
    }
    if (route === '/api/import/upload') {
      const file = await uploads.receive(url.searchParams.get('batch') ?? '', url.searchParams.get('name') ?? '', req);
      sendJson(res, 200, { name: file.name, bytes: file.bytes });
      return;
    }
    if (route === '/api/import') {
      const body = ImportRequest.safeParse(await readJson(req, JSON_LIMIT));
      if (!body.success) throw new NemoriError('INVALID_INPUT', 'import: expected { batch, …importFiles input without paths }');
      const { batch, paths: _ignored, ...rest } = body.data;
      const files = uploads.take(batch);
      // A dry run (the preview) keeps the files for the import that follows it.
      const keep = rest.dryRun === true;
      try {
        const result = await dispatcher.dispatch('importFiles', { ...rest, paths: files.map((f) => f.path) });
        if (result.ok) result.value = withOriginalNames(result.value, files) as ImportFilesOutput;
        sendResult(res, result);
      } finally {
        if (keep) uploads.putBack(batch, files);
        else await uploads.discard(batch);
      }
      return;
    }
    sendError(res, { code: 'UNKNOWN_OPERATION', message: `no such endpoint: ${route}` });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!isLoopbackHost(req.headers.host, port)) {
      res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8' }).end('This server only answers on 127.0.0.1.');
      return;
    }
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    if (url.pathname.startsWith('/api/') || url.pathname === '/mcp') {
      const counted = url.pathname !== '/api/events';
      if (counted) inFlight++;
      try {
        await handleApi(req, res, url);
      } finally {
        if (counted) {
          inFlight--;
          // Draining: a connection that has answered its last call may go now.
          if (closing && inFlight === 0) server.closeIdleConnections();
        }
      }
      return;
    }
    if ((req.method === 'GET' || req.method === 'HEAD') && o.staticDir) {
      await serveStatic(o.staticDir, url.pathname, res, req.method === 'HEAD');
      return;
    }
    if (!o.staticDir) {
      sendError(res, { code: 'UNKNOWN_OPERATION', message: `no such endpoint: ${url.pathname}` });
      return;
    }
    res.writeHead(405, { ...PAGE_HEADERS, Allow: 'GET, HEAD' }).end();
  }

  server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      const error = toWireError(e);
      if (error.code === 'INTERNAL') log(`${req.method} ${req.url} failed`, e);
      if (res.headersSent) res.destroy();
      else sendError(res, error);
    });
  });
  // PGlite imports can run for minutes; the socket must not be cut under a long call.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;

  return {
    url: `${origin}/#token=${token}`,
    origin,
    port,
    token,
    companionToken: tokens.companion,
    emit,
    get inFlight() {
      return inFlight;
    },
    close(c = {}) {
      closing ??= (async () => {
        hub.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          if (c.drain) server.closeIdleConnections();
          else server.closeAllConnections();
        });
        await uploads.close();
      })();
      if (!c.drain) server.closeAllConnections();
      return closing;
    },
  };
}
