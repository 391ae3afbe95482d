import type { IncomingMessage } from 'node:http';
import { NemoriError } from '../domain/errors.js';

/** Reads a JSON request body (at most `limit` bytes). An empty body is `{}`: operations without input. */
export async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new NemoriError('INVALID_INPUT', `the request is larger than ${Math.round(limit / 2 ** 20)} MiB`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (!text) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new NemoriError('INVALID_INPUT', 'the request body is not valid JSON');
  }
}
