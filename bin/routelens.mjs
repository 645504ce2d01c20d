#!/usr/bin/env node
// Runs the TypeScript CLI directly through tsx's loader, so `npx routelens` needs no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../electron/cli.ts');
process.exitCode = await main(process.argv.slice(2));
