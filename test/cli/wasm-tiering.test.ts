/** How much of PGlite's WebAssembly each `nemori` command has V8 optimise (bin/wasm-tiering.mjs). */
import { describe, expect, it } from 'vitest';
import { wasmTiering } from '../../bin/wasm-tiering.mjs';

describe('WebAssembly tiering per command', () => {
  it("leaves long work to V8's default", () => {
    for (const argv of [
      ['import', 'chat.json'],
      ['--home', '/data', '--json', 'import', 'a.zip', 'b.txt'],
      ['rebuild', '--reembed'],
      ['export', 'me.zip'],
      ['--progress', 'json', 'data', 'backup'],
      ['data', 'restore', 'b.tar.gz'],
      ['data', 'move', '/elsewhere'],
      ['health', '--deep'],
    ])
      expect(wasmTiering(argv), argv.join(' ')).toBeNull();
  });

  it('optimises only what stays hot in a server', () => {
    for (const argv of [['web', '--port', '4242'], ['mcp'], ['--home', '/data', 'mcp', '--read-only']])
      expect(wasmTiering(argv), argv.join(' ')).toBe('--wasm-tiering-budget=180000000');
  });

  it('optimises nothing in a command that answers and quits, whatever its arguments say', () => {
    for (const argv of [
      [],
      ['--help'],
      ['load', '--query', 'boots'],
      ['search', 'import', 'rebuild'],
      ['--home', 'import', 'stats'],
      ['--llm-model', 'web', 'health'],
      ['health', '--json'],
      ['mcp', 'config', '--client', 'cursor'],
      ['data'],
      ['data', 'model', 'Xenova/multilingual-e5-small'],
      ['knowledge', 'list'],
    ])
      expect(wasmTiering(argv), argv.join(' ')).toBe('--liftoff-only');
  });
});
