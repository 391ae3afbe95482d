#!/usr/bin/env node
// The `nemori` command: runs the TypeScript CLI through tsx's loader, so there is no build step to forget.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../core/cli/main.ts');
await main(process.argv);
