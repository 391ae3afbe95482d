/**
 * The loopback transport between a data folder's holder and its clients (core/engine/connect.ts): the
 * holder answers with the HTTP bridge's server (no renderer), a client calls it with node:http —
 * streamed answers with progress, its own call ids for `cancelCall`, bearer token from the holder file.
 */
import http from 'node:http';
import { WireCallError } from '../api/dispatch.js';
import type { ErrorCode } from '../domain/errors.js';
import { NemoriError } from '../domain/errors.js';
import { HolderGone, type HolderAddress, type HolderTransport } from '../engine/connect.js';
import { HolderIdentity } from '../engine/holder.js';
import type { WireError } from '../api/wire.js';
import { callPath, HOLDER_HEADERS, NDJSON, PING_PATH, StreamFrame } from './holder-protocol.js';
import { startWebServer } from './server.js';

const DOMAIN_CODES = [
  'INVALID_INPUT',
  'IMPORT_PARSE',
  'NOT_FOUND',
  'STORE_LOCKED',
  'STORE_MIGRATION',
  'MODEL_UNAVAILABLE',
  'MODEL_CHECKSUM_MISMATCH',
] as const satisfies readonly ErrorCode[];
// Every engine error code is listed: a new one must be added above to come back as a NemoriError.
const everyCode: [Exclude<ErrorCode, (typeof DOMAIN_CODES)[number]>] extends [never] ? true : never = true;
void everyCode;

/** The holder's error as the engine here would have thrown it (NemoriError for the engine's own codes). */
function rethrown(error: WireError): Error {
  return (DOMAIN_CODES as readonly string[]).includes(error.code)
    ? new NemoriError(error.code as ErrorCode, error.message)
    : new WireCallError(error);
}

const PING_TIMEOUT_MS = 10_000;

function readBody(res: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}

function ping(at: HolderAddress): Promise<HolderIdentity | null> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: at.port,
        method: 'GET',
        path: PING_PATH,
        agent: false,
        timeout: PING_TIMEOUT_MS,
        headers: { Authorization: `Bearer ${at.token}` },
      },
      (res) => {
        readBody(res).then(
          (text) => {
            if (res.statusCode !== 200) return resolve(null);
            try {
              const parsed = HolderIdentity.safeParse(JSON.parse(text));
              resolve(parsed.success ? parsed.data : null);
            } catch {
              resolve(null);
            }
          },
          () => resolve(null),
        );
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
    req.end();
  });
}

const call: HolderTransport['call'] = (at, name, input, o) =>
  new Promise((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      fn();
    };
    const body = JSON.stringify(input ?? {});
    const req = http.request({
      host: '127.0.0.1',
      port: at.port,
      method: 'POST',
      path: callPath(name),
      // One connection per call: a refused connection then surely means the call went nowhere.
      agent: false,
      headers: {
        Authorization: `Bearer ${at.token}`,
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
        Accept: NDJSON,
        [HOLDER_HEADERS.callId]: o.callId,
        [HOLDER_HEADERS.home]: encodeURIComponent(at.home),
      },
      ...(o.signal ? { signal: o.signal } : {}),
    });
    // Until the whole request is out, the holder cannot have started the call (it reads the body first).
    let sent = false;
    req.on('finish', () => (sent = true));
    req.on('error', (e) => {
      if (o.signal?.aborted)
        return settle(() => reject(new WireCallError({ code: 'ENGINE_UNAVAILABLE', message: `${name} was cancelled` })));
      settle(() =>
        reject(
          new HolderGone(
            sent,
            `the Nemori holding ${at.home} (pid ${at.pid}) did not answer: ${(e as NodeJS.ErrnoException).code ?? e.message}`,
          ),
        ),
      );
    });
    req.on('response', (res) => {
      if (res.statusCode !== 200 || !res.headers['content-type']?.startsWith(NDJSON)) {
        readBody(res).then(
          (text) => {
            let error: WireError;
            try {
              error = (JSON.parse(text) as { error: WireError }).error;
              if (typeof error?.code !== 'string') throw new Error('no error');
            } catch {
              error = { code: 'INTERNAL', message: `the Nemori holding ${at.home} answered HTTP ${res.statusCode}` };
            }
            // Not run there: a holder of another folder now, or one that does not know this token (a new process on the old port).
            if (res.headers[HOLDER_HEADERS.notRun] === '1' || error.code === 'UNAUTHORIZED')
              settle(() => reject(new HolderGone(false, error.message)));
            else settle(() => reject(rethrown(error)));
          },
          () => settle(() => reject(new HolderGone(true, `the Nemori holding ${at.home} went away during ${name}`))),
        );
        return;
      }
      res.setEncoding('utf8');
      let buffer = '';
      const frame = (line: string) => {
        if (!line.trim()) return;
        let parsed: StreamFrame;
        try {
          parsed = StreamFrame.parse(JSON.parse(line));
        } catch {
          settle(() => reject(new WireCallError({ code: 'INTERNAL', message: `the Nemori holding ${at.home} sent something unreadable` })));
          req.destroy();
          return;
        }
        if (parsed.type === 'progress') o.onProgress?.(parsed.event as Parameters<NonNullable<typeof o.onProgress>>[0]);
        else if (parsed.ok) settle(() => resolve(parsed.value));
        else settle(() => reject(rethrown(parsed.error as WireError)));
      };
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, end);
          buffer = buffer.slice(end + 1);
          frame(line);
        }
      });
      res.on('end', () => {
        frame(buffer);
        settle(() => reject(new HolderGone(true, `the Nemori holding ${at.home} (pid ${at.pid}) went away during ${name}`)));
      });
      res.on('error', () =>
        settle(() => reject(new HolderGone(true, `the Nemori holding ${at.home} (pid ${at.pid}) went away during ${name}`))),
      );
      res.on('close', () =>
        settle(() => reject(new HolderGone(true, `the Nemori holding ${at.home} (pid ${at.pid}) went away during ${name}`))),
      );
    });
    req.end(body);
  });

/** HTTP on 127.0.0.1 with the holder's token: what every front end passes to connectOrOpenEngine. */
export const loopback: HolderTransport = {
  async serve(engine, identity) {
    const server = await startWebServer({ engine, holder: identity, log: (m, e) => console.error(`[nemori] ${m}`, e ?? '') });
    return {
      port: server.port,
      token: server.token,
      companionToken: server.companionToken,
      inFlight: () => server.inFlight,
      close: (o) => server.close(o),
    };
  },
  ping,
  call,
};
