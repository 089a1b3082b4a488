#!/usr/bin/env node
// The `voxsmith` command (`npx voxsmith voices add en_US-lessac-medium`): runs the compiled CLI from dist/ when
// it is current, else the sources through tsx (no build step for a one-off command after an edit).
import { isStale } from './build.mjs';

let cli;
if (isStale()) {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import('../src/cli/voxsmith.ts');
} else {
  cli = await import('../dist/cli/voxsmith.js');
}
await cli.main();
