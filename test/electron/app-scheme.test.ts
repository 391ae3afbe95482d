import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentTypeFor } from '../../core/http/static';
import { APP_ENTRY_URL, resolveAppAsset } from '../../electron/main/app-scheme';

const root = path.resolve('/opt/Nemori/resources/app.asar/out/renderer');

describe('app:// serves the built renderer and nothing else', () => {
  it('maps app URLs to files in the renderer directory', () => {
    expect(resolveAppAsset(root, APP_ENTRY_URL)).toBe(path.join(root, 'index.html'));
    expect(resolveAppAsset(root, 'app://nemori/')).toBe(path.join(root, 'index.html'));
    expect(resolveAppAsset(root, 'app://nemori/assets/index-abc.js?v=1')).toBe(path.join(root, 'assets/index-abc.js'));
    expect(resolveAppAsset(root, 'app://nemori/assets/caf%C3%A9.png')).toBe(path.join(root, 'assets/café.png'));
  });

  it('never reads outside the renderer directory', () => {
    for (const url of [
      'app://nemori/../../../../etc/passwd',
      'app://nemori/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
      'app://nemori/assets/%2e%2e%2f%2e%2e%2f%2e%2e%2fmain/index.js',
      'app://nemori/..%5c..%5cmain%5cindex.js',
      'app://nemori/index.html%00.png',
      'app://nemori/%E0%A4%A',
    ]) {
      const resolved = resolveAppAsset(root, url);
      if (resolved !== null) expect(resolved.startsWith(root + path.sep), url).toBe(true);
    }
    expect(resolveAppAsset(root, 'app://nemori/..%5c..%5cmain%5cindex.js')).toBeNull();
    expect(resolveAppAsset(root, 'app://nemori/%E0%A4%A')).toBeNull();
  });

  it('ignores other hosts and schemes', () => {
    expect(resolveAppAsset(root, 'app://other/index.html')).toBeNull();
    expect(resolveAppAsset(root, 'file:///etc/passwd')).toBeNull();
    expect(resolveAppAsset(root, 'https://nemori/index.html')).toBeNull();
  });

  it('labels what it serves', () => {
    expect(contentTypeFor('index.html')).toBe('text/html; charset=utf-8');
    expect(contentTypeFor('assets/index-abc.js')).toBe('text/javascript; charset=utf-8');
    expect(contentTypeFor('assets/index-abc.CSS')).toBe('text/css; charset=utf-8');
    expect(contentTypeFor('model.bin')).toBe('application/octet-stream');
  });
});
