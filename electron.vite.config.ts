import { createHash } from 'node:crypto';
import { cpSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';
import { CONTENT_SECURITY_POLICY_META, devContentSecurityPolicy } from './core/http/csp';

const root = fileURLToPath(new URL('.', import.meta.url));
const here = (...segments: string[]): string => resolve(root, ...segments);

/**
 * Dev server only: the React Refresh preamble is an inline module script, allowed by its hash
 * (not by 'unsafe-inline'), and HMR needs its websocket. Production keeps the strict policy.
 */
const preambleHash = `sha256-${createHash('sha256').update(react.preambleCode.replace('__BASE__', '/')).digest('base64')}`;
const devCsp = (meta: boolean): string =>
  devContentSecurityPolicy({
    scriptHashes: [preambleHash],
    connectSources: ['ws://localhost:*', 'ws://127.0.0.1:*'],
    meta,
  });

/** Swaps the production CSP <meta> of renderer/index.html for the dev policy while serving. */
function devContentSecurityPolicyMeta(): Plugin {
  return {
    name: 'nemori:dev-csp-meta',
    apply: 'serve',
    transformIndexHtml(html) {
      const tag = `content="${CONTENT_SECURITY_POLICY_META}"`;
      if (!html.includes(tag)) throw new Error('renderer/index.html: the CSP <meta> does not match core/http/csp.ts');
      return html.replace(tag, `content="${devCsp(true)}"`);
    },
  };
}

/**
 * The engine reads its SQL migrations and LLM prompts from folders next to its code
 * (`new URL('./migrations/', import.meta.url)` in core/store/migrate.ts, likewise core/llm/prompts):
 * copy them beside the bundled engine so the packaged app finds them the same way.
 */
function engineDataFolders(): Plugin {
  const folders = { migrations: 'core/store/migrations', prompts: 'core/llm/prompts' };
  return {
    name: 'nemori:engine-data-folders',
    apply: 'build',
    writeBundle(options) {
      for (const [name, from] of Object.entries(folders)) {
        cpSync(here(from), resolve(options.dir ?? here('out/main'), name), { recursive: true });
      }
    },
  };
}

/** Fails the build if the preload bundle would need anything a sandboxed preload cannot require(). */
function sandboxedPreloadGuard(): Plugin {
  const allowed = new Set(['electron']);
  return {
    name: 'nemori:sandboxed-preload-guard',
    apply: 'build',
    generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk') continue;
        if (!chunk.isEntry) this.error(`preload must be one file, but ${chunk.fileName} was split off`);
        const forbidden = chunk.imports.filter((id) => !allowed.has(id));
        if (forbidden.length) this.error(`sandboxed preload cannot require ${forbidden.join(', ')}`);
      }
    },
  };
}

export default defineConfig({
  main: {
    plugins: [engineDataFolders()],
    build: {
      outDir: here('out/main'),
      // `dependencies` stay external (loaded from node_modules at runtime); format follows
      // package.json "type": "module" → ESM out/main/index.js.
      externalizeDeps: true,
      rolldownOptions: {
        // `engine` is the utility process main forks (electron/main/engine-host.ts): the engine
        // runs there, off the window's thread. `embed-worker` is the embedding model's thread, which the
        // engine starts from beside its own module (core/embed/model-worker.ts).
        input: {
          index: here('electron/main/index.ts'),
          engine: here('electron/engine/entry.ts'),
          'embed-worker': here('core/embed/embed-worker.ts'),
        },
      },
    },
  },
  preload: {
    plugins: [sandboxedPreloadGuard()],
    build: {
      outDir: here('out/preload'),
      // Bundle everything: a sandboxed preload cannot require() packages, only 'electron'.
      externalizeDeps: false,
      rolldownOptions: {
        input: { index: here('electron/preload/index.ts') },
        // A sandboxed preload can only be a CommonJS script; `.cjs` because package.json is "type": "module".
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: here('renderer'),
    plugins: [react(), devContentSecurityPolicyMeta()],
    server: {
      headers: { 'Content-Security-Policy': devCsp(false) },
    },
    build: {
      outDir: here('out/renderer'),
      rolldownOptions: {
        input: { index: here('renderer/index.html') },
      },
    },
  },
});
