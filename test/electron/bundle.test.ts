import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureRendererBuilt } from '../e2e/harness.js';

const root = path.join(import.meta.dirname, '..', '..');
const list = (dir: string) => fs.readdirSync(dir).sort();

describe('the built app', () => {
  it('has its three parts: the main process (with the engine process entry), the sandboxed preload and the renderer', () => {
    ensureRendererBuilt();
    for (const file of ['main/index.js', 'main/engine.js', 'preload/index.cjs', 'renderer/index.html']) {
      expect(fs.existsSync(path.join(root, 'out', file)), file).toBe(true);
    }
  });

  it('carries the migrations and prompts beside the bundled engine, as the engine looks for them', () => {
    ensureRendererBuilt();
    expect(fs.existsSync(path.join(root, 'out', 'main', 'engine.js'))).toBe(true);
    expect(list(path.join(root, 'out', 'main', 'migrations'))).toEqual(list(path.join(root, 'core', 'store', 'migrations')));
    expect(list(path.join(root, 'out', 'main', 'prompts'))).toEqual(list(path.join(root, 'core', 'llm', 'prompts')));
  });
});
