/**
 * Files a browser sends for import. A browser cannot hand the engine a path, so the bridge keeps
 * each uploaded file (streamed, never held in memory: chat exports can be large) in a temporary
 * folder under its original name (importers detect some formats by name), imports the batch, and
 * deletes it. Each file gets its own sub-folder so two files with one name do not collide.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { NemoriError } from '../domain/errors.js';

const BATCH_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_FILES_PER_BATCH = 1000;
/** The largest file one upload may be (a whole-account export is a few GiB); larger ones stop the upload. */
export const MAX_UPLOAD_BYTES = 8 * 2 ** 30;

/** A file name as the person chose it, reduced to a safe single path segment. */
export function safeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const clean = base
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, 200);
  if (!clean || clean === '.' || clean === '..') throw new NemoriError('INVALID_INPUT', `not a usable file name: "${name}"`);
  return clean;
}

export interface UploadedFile {
  /** Where the engine reads it. */
  path: string;
  /** What the person called it (shown in the import report instead of the temporary path). */
  name: string;
  bytes: number;
}

export interface UploadArea {
  receive(batch: string, name: string, body: IncomingMessage): Promise<UploadedFile>;
  /** The batch's files in upload order; the batch is forgotten (and must be discarded or put back) after. */
  take(batch: string): UploadedFile[];
  /** Returns taken files to their batch (after a preview, for the import that follows). */
  putBack(batch: string, files: UploadedFile[]): void;
  discard(batch: string): Promise<void>;
  close(): Promise<void>;
}

/** Passes the body through, failing once it outgrows `max` bytes (a body may not say its length, or lie). */
function limited(max: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > max) done(new NemoriError('INVALID_INPUT', `the file is larger than ${max} bytes, the most one upload may be`));
      else done(null, chunk);
    },
  });
}

export async function createUploadArea(o: { maxFileBytes?: number } = {}): Promise<UploadArea> {
  const maxFileBytes = o.maxFileBytes ?? MAX_UPLOAD_BYTES;
  const root = await mkdtemp(path.join(os.tmpdir(), 'nemori-upload-'));
  const batches = new Map<string, UploadedFile[]>();
  const batchDir = (batch: string) => path.join(root, batch);

  function checkBatch(batch: string): void {
    if (!BATCH_ID.test(batch)) throw new NemoriError('INVALID_INPUT', 'the upload batch id must be a UUID');
  }

  return {
    async receive(batch, name, body) {
      checkBatch(batch);
      const files = batches.get(batch) ?? [];
      if (files.length >= MAX_FILES_PER_BATCH) throw new NemoriError('INVALID_INPUT', `at most ${MAX_FILES_PER_BATCH} files per import`);
      const fileName = safeFileName(name);
      const dir = path.join(batchDir(batch), String(files.length));
      await mkdir(dir, { recursive: true });
      const filePath = path.join(dir, fileName);
      if (Number(body.headers['content-length'] ?? 0) > maxFileBytes) {
        throw new NemoriError('INVALID_INPUT', `the file is larger than ${maxFileBytes} bytes, the most one upload may be`);
      }
      const out = createWriteStream(filePath);
      try {
        await pipeline(body, limited(maxFileBytes), out);
      } catch (e) {
        await rm(dir, { recursive: true, force: true });
        throw e;
      }
      const file = { path: filePath, name: fileName, bytes: out.bytesWritten };
      files.push(file);
      batches.set(batch, files);
      return file;
    },
    take(batch) {
      checkBatch(batch);
      const files = batches.get(batch);
      if (!files?.length) throw new NemoriError('NOT_FOUND', 'nothing was uploaded for this import; choose the files again');
      batches.delete(batch);
      return files;
    },
    putBack(batch, files) {
      checkBatch(batch);
      batches.set(batch, files);
    },
    async discard(batch) {
      checkBatch(batch);
      batches.delete(batch);
      await rm(batchDir(batch), { recursive: true, force: true });
    },
    async close() {
      batches.clear();
      await rm(root, { recursive: true, force: true });
    },
  };
}
