import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openEngine, type Engine, type OpenEngineOptions } from '../../core/api/engine.js';

export const fixture = (...p: string[]) => path.join(import.meta.dirname, '..', 'fixtures', ...p);

let ownerSeq = 0;
/** Each test gets its own owner inside a shared store: PGlite start-up is the expensive part. */
export function newOwner(label = 'owner'): string {
  return `${label}-${process.pid}-${++ownerSeq}`;
}

export async function openMemoryEngine(o: Partial<OpenEngineOptions> = {}): Promise<Engine> {
  return openEngine({ home: null, embedder: null, ...o });
}

export function tempDir(prefix = 'nemori-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}
