import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { MailroomError } from '@mailroom/core';
import express, { type NextFunction, type Request, type Response, Router } from 'express';
import type { OtherPath } from '../../http/router';
import { DASHBOARD_CONTENT_SECURITY_POLICY } from './content-security-policy';

// The repository's root, or the production tree's (its bundles keep source-relative paths).
const ROOT = path.resolve(__dirname, '../../../../..');

/**
 * Where the dashboard's build is: packages/dashboard/dist in the repository, dashboard/ in the
 * production tree (which holds no package folders).
 */
export const DASHBOARD_DIST_DIR = [path.join(ROOT, 'packages/dashboard/dist'), path.join(ROOT, 'dashboard')].find((dir) => existsSync(dir)) ?? path.join(ROOT, 'packages/dashboard/dist');

/** The dashboard's paths, for the 405 another method gets there. */
export const DASHBOARD_PATHS: readonly OtherPath[] = [{ regex: /^\/dashboard(?:\/.*)?$/i, method: 'GET' }];

// Asset names carry a hash of their content, so a year is safe: a new build has new names.
const ASSET_MAX_AGE_MS = 365 * 24 * 3600 * 1000;

function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.set({
    'Content-Security-Policy': DASHBOARD_CONTENT_SECURITY_POLICY,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
  });
  next();
}

/**
 * The web console at `/dashboard`: its hashed assets with a long cache, and index.html (never
 * cached) for every other `/dashboard/…` path, so the app's own router shows the page. Not in
 * the OpenAPI document: it answers HTML, not the API's JSON. A path under /dashboard/assets that
 * names no file is the API's JSON 404, as is everything when the dashboard was not built.
 */
export function dashboardRouter(distDir: string = DASHBOARD_DIST_DIR): Router {
  const router = Router();
  router.use('/dashboard', securityHeaders);
  router.use(
    '/dashboard/assets',
    express.static(path.join(distDir, 'assets'), { immutable: true, maxAge: ASSET_MAX_AGE_MS, index: false, redirect: false, fallthrough: true }),
  );
  router.get(['/dashboard', '/dashboard/{*rest}'], async (req, res, next) => {
    if (req.path.startsWith('/dashboard/assets/')) return next();
    let html: Buffer;
    try {
      html = await readFile(path.join(distDir, 'index.html'));
    } catch {
      throw new MailroomError('not_found', 'The dashboard is not built here: run `pnpm install` or `pnpm --filter @mailroom/dashboard build`.');
    }
    res.set('Cache-Control', 'no-cache').type('html').send(html);
  });
  return router;
}
