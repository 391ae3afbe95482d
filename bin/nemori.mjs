#!/usr/bin/env node
// The `nemori` command: the sources bundled into one module, rebuilt whenever they change
// (bin/cli-bundle.mjs); where no bundle can be made (node_modules not writable), through tsx's loader.
import { pathToFileURL } from 'node:url';
import { currentCliBundle } from './cli-bundle.mjs';

const bundle = await currentCliBundle().catch(() => null);
if (bundle) await import(pathToFileURL(bundle).href);
else {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../core/cli/main.ts');
  await main(process.argv);
}
