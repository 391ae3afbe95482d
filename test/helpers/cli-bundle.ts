/**
 * The `nemori` command as one prebuilt ES module, for the tests that run it many times.
 *
 * bin/nemori.mjs runs the TypeScript sources through tsx's loader: every start resolves and loads
 * some hundred modules through loader hooks on a second thread, ~1.8 s of CPU before the command does
 * anything, and a CLI test starts the command dozens of times. This is the same program — bin/nemori.mjs
 * without tsx's `register()`, transpiled by the same esbuild tsx uses — bundled once per run by
 * test/global-setup.ts (~0.6 s of CPU per start). npm packages stay external (the same node_modules,
 * so the same PGlite and model runtime), and `import.meta.url` keeps each source file's own address, so
 * the migrations, prompts and renderer are found where they are. `nemori web` tests start the real
 * bin/nemori.mjs, so the tsx path stays covered.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/** The variable runNemori (test/helpers/cli.ts) reads the bundle's path from. */
export const CLI_BUNDLE_ENV = 'TEST_NEMORI_CLI';

type Esbuild = typeof import('esbuild');

/** Writes `<dir>/nemori.mjs` (beside a node_modules link to the project's) and returns its path. */
export async function buildCliBundle(dir: string): Promise<string> {
  // esbuild is tsx's own transpiler: resolved from tsx, the version tsx runs the sources with.
  const esbuild = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'))('esbuild') as Esbuild;
  const outfile = path.join(dir, 'nemori.mjs');
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  await esbuild.build({
    stdin: {
      // bin/nemori.mjs after `register()`.
      contents: "const { main } = await import('../core/cli/main.ts');\nawait main(process.argv);\n",
      resolveDir: path.join(ROOT, 'bin'),
      sourcefile: 'nemori.mjs',
      loader: 'js',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile,
    logLevel: 'warning',
    plugins: [
      {
        name: 'own-import-meta-url',
        setup(build) {
          build.onLoad({ filter: /\.[cm]?ts$/ }, async (args) => ({
            contents: (await fs.promises.readFile(args.path, 'utf8')).replaceAll(
              'import.meta.url',
              JSON.stringify(pathToFileURL(args.path).href),
            ),
            loader: 'ts',
          }));
        },
      },
    ],
  });
  return outfile;
}
