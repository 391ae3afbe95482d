/**
 * The `nemori` command as prebuilt ES modules: the program, and the parts it loads on demand.
 *
 * Through tsx's loader, every start resolves and transpiles some hundred modules through loader hooks
 * on a second thread: ~1.8 s of CPU and ~80 MB before the command does anything, paid by every
 * companion that runs `nemori load` or starts `nemori mcp`. The same program bundled by the esbuild
 * tsx itself transpiles with starts in about a third of that. The bundle is made on first use and kept
 * under node_modules/.cache, named by a hash of core/'s files, so it is never older than the sources:
 * an edit or a checkout makes the next start build a new one.
 *
 * npm packages stay external (the same node_modules, so the same PGlite and model runtime), and each
 * source's `import.meta` (url, dirname, filename) stays its own file's address, so the migrations,
 * prompts and renderer are found where they are; the model's worker thread is bundled too.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = path.resolve(import.meta.dirname, '..');
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'nemori-cli');

/**
 * Writes a bundle into the folder `dir`: the program `main` (esbuild's `entryPoints` or `stdin`) as
 * `outName`, and the model's worker thread (embed-worker.js), which the program starts from beside
 * model-worker's address as the app does beside its engine (core/embed/model-worker.ts): `at`, the
 * folder they will be run from, is that address. Packages resolve from the node_modules above the folder.
 */
export async function buildBundle(dir, at, main, outName) {
  // esbuild is tsx's own transpiler: resolved from tsx, the version tsx runs the sources with.
  const esbuild = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'))('esbuild');
  const modelWorker = path.join(ROOT, 'core', 'embed', 'model-worker.ts');
  const options = {
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'silent',
    plugins: [
      {
        name: 'own-import-meta',
        setup(build) {
          build.onLoad({ filter: /\.[cm]?ts$/ }, async (args) => {
            const address = args.path === modelWorker ? path.join(at, 'model-worker.js') : args.path;
            const source = await fs.promises.readFile(args.path, 'utf8');
            const contents = source
              .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(address).href))
              .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(address)))
              .replaceAll('import.meta.filename', JSON.stringify(address));
            return { contents, loader: 'ts' };
          });
        },
      },
    ],
  };
  fs.mkdirSync(dir, { recursive: true });
  // Under node_modules no package.json above says so: without this one, .js files would load as CommonJS.
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
  const { name, ext } = path.parse(outName);
  await Promise.all([
    // Split at dynamic imports, so that what a command loads only when it needs it (the MCP SDK behind
    // `/mcp`, say) is not loaded by every start: each part is a file of its own, the program `outName`.
    esbuild.build({
      ...options,
      ...main,
      splitting: true,
      outdir: dir,
      entryNames: name,
      chunkNames: 'part-[hash]',
      outExtension: { '.js': ext },
    }),
    esbuild.build({
      ...options,
      entryPoints: [path.join(ROOT, 'core', 'embed', 'embed-worker.ts')],
      outfile: path.join(dir, 'embed-worker.js'),
    }),
  ]);
}

/** The command's bundle (nemori.mjs) in `dir`, to be run from `at` (see buildBundle). */
export function buildCliBundle(dir, at = dir) {
  return buildBundle(
    dir,
    at,
    {
      stdin: {
        // bin/nemori.mjs after tsx's `register()`.
        contents: "const { main } = await import('../core/cli/main.ts');\nawait main(process.argv);\n",
        resolveDir: path.join(ROOT, 'bin'),
        sourcefile: 'nemori.mjs',
        loader: 'js',
      },
    },
    'nemori.mjs',
  );
}

/**
 * A hash of every file under `dir` (names and contents), of where `dir` is (a bundle holds its
 * sources' addresses) and of this bundler.
 */
export function sourcesHash(dir) {
  const hash = createHash('sha256')
    .update(fs.readFileSync(import.meta.filename))
    .update(`${path.resolve(dir)}\0`);
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else hash.update(`${path.relative(dir, p)}\0`).update(fs.readFileSync(p));
    }
  };
  walk(dir);
  return hash.digest('hex').slice(0, 16);
}

/** A bundle no start used for this long is removed when another is built. */
const UNUSED_MS = 7 * 86_400_000;

/**
 * The command's bundle of the sources as they are now, built if there is none. Each start marks its
 * bundle used; a build removes those no start used for a week (other checkouts sharing node_modules
 * keep theirs). Processes starting at once may each build it: each in its own folder, renamed into
 * place by the first to finish.
 */
export async function currentCliBundle() {
  const dir = path.join(CACHE, `nemori-${sourcesHash(path.join(ROOT, 'core'))}`);
  const file = path.join(dir, 'nemori.mjs');
  if (fs.existsSync(file)) {
    const now = new Date();
    // A folder it may not write to (an install made read-only after the build) still serves the bundle.
    fs.promises.utimes(dir, now, now).catch(() => undefined);
    return file;
  }
  const partial = `${dir}.${process.pid}.tmp`;
  try {
    await buildCliBundle(partial, dir);
    fs.renameSync(partial, dir);
  } catch (e) {
    if (!fs.existsSync(file)) throw e;
  } finally {
    fs.rmSync(partial, { recursive: true, force: true });
  }
  for (const old of fs.readdirSync(CACHE)) {
    const p = path.join(CACHE, old);
    if (Date.now() - fs.statSync(p).mtimeMs > UNUSED_MS) fs.rmSync(p, { recursive: true, force: true });
  }
  return file;
}
