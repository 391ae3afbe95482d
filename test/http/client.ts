import http from 'node:http';

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json<T = unknown>(): T;
}

/** A raw HTTP request (node:http, so tests can send any Host, Origin or un-normalised path). */
export function request(
  port: number,
  o: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: o.method ?? 'GET', path: o.path, headers: o.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: <T>() => JSON.parse(text) as T });
      });
    });
    req.on('error', reject);
    if (o.body !== undefined) req.write(o.body);
    req.end();
  });
}

/** One contract call over the bridge, as the renderer makes it. */
export function callOp(port: number, token: string, operation: string, input: unknown): Promise<Reply> {
  return request(port, {
    method: 'POST',
    path: `/api/call/${operation}`,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(input),
  });
}

/** Subscribes to the bridge's Server-Sent Events; `events` fills as they arrive. */
export function listen(port: number, token: string): Promise<{ events: unknown[]; close(): void }> {
  return new Promise((resolve, reject) => {
    const events: unknown[] = [];
    const req = http.get({ host: '127.0.0.1', port, path: `/api/events?token=${encodeURIComponent(token)}` }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`events: HTTP ${res.statusCode}`));
        return;
      }
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          for (const line of frame.split('\n')) if (line.startsWith('data: ')) events.push(JSON.parse(line.slice(6)));
        }
      });
      resolve({ events, close: () => req.destroy() });
    });
    req.on('error', (e) => {
      if ((e as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(e);
    });
  });
}

/** Resolves once `predicate` holds, re-checking whenever the event loop turns. */
export async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((r) => setTimeout(r, 20));
}
