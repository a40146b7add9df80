import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** The workspace root (bench/lib/ → ../..). */
export const REPOSITORY_ROOT = path.resolve(__dirname, '..', '..');

const rootRequire = createRequire(path.join(REPOSITORY_ROOT, 'package.json'));

/** `node --import <this>` runs TypeScript: tsx's loader, resolved from the workspace root. */
export const TSX_LOADER = pathToFileURL(rootRequire.resolve('tsx')).href;

/**
 * Where the bare express baseline loads express from: the root if it is installed there,
 * otherwise the gateway's own copy (the same version the gateway runs).
 */
export function resolveExpress(): string {
  for (const from of [path.join(REPOSITORY_ROOT, 'package.json'), path.join(REPOSITORY_ROOT, 'services', 'gateway', 'package.json')]) {
    try {
      return createRequire(from).resolve('express');
    } catch {
      // Try the next place.
    }
  }
  throw new Error('express is installed neither at the workspace root nor in services/gateway: run pnpm install.');
}

