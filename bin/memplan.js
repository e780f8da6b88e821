#!/usr/bin/env node
// The command is written in TypeScript; tsx compiles it on the fly so that a fresh
// clone works right after `npm ci`, with no build step to forget.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
