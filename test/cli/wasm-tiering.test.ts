/** Which `nemori` commands keep V8's optimising WebAssembly compiler: those that run long or serve (bin/wasm-tiering.mjs). */
import { describe, expect, it } from 'vitest';
import { runsLong } from '../../bin/wasm-tiering.mjs';

describe('commands that run long', () => {
  it('are the imports, rebuilds, exports, backups, restores, moves and servers', () => {
    for (const argv of [
      ['import', 'chat.json'],
      ['--home', '/data', '--json', 'import', 'a.zip', 'b.txt'],
      ['rebuild', '--reembed'],
      ['export', 'me.zip'],
      ['web', '--port', '4242'],
      ['mcp'],
      ['mcp', '--read-only'],
      ['--progress', 'json', 'data', 'backup'],
      ['data', 'restore', 'b.tar.gz'],
      ['data', 'move', '/elsewhere'],
    ])
      expect(runsLong(argv), argv.join(' ')).toBe(true);
  });

  it('are not the commands that answer and quit, whatever their arguments say', () => {
    for (const argv of [
      [],
      ['--help'],
      ['load', '--query', 'boots'],
      ['search', 'import', 'rebuild'],
      ['--home', 'import', 'stats'],
      ['--llm-model', 'web', 'health'],
      ['mcp', 'config', '--client', 'cursor'],
      ['data'],
      ['data', 'model', 'Xenova/multilingual-e5-small'],
      ['knowledge', 'list'],
    ])
      expect(runsLong(argv), argv.join(' ')).toBe(false);
  });
});
