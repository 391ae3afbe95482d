#!/usr/bin/env node
// The `nemori` command: the sources bundled, rebuilt whenever they change
// (bin/cli-bundle.mjs); where no bundle can be made (node_modules not writable), through tsx's loader.
import v8 from 'node:v8';
import { pathToFileURL } from 'node:url';
import { currentCliBundle } from './cli-bundle.mjs';
import { wasmTiering } from './wasm-tiering.mjs';

// Before PGlite's WebAssembly is compiled: how much of it to optimise depends on the command (bin/wasm-tiering.mjs).
const tiering = wasmTiering(process.argv.slice(2));
if (tiering) v8.setFlagsFromString(tiering);

const bundle = await currentCliBundle().catch(() => null);
if (bundle) await import(pathToFileURL(bundle).href);
else {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../core/cli/main.ts');
  await main(process.argv);
}
