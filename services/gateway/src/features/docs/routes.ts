import { notFound } from '@mailroom/core';
import { z } from 'zod';
import { defineRoute } from '../../http/route';
import type { OpenApiDocument } from '../../openapi/document';
import { createDocsAssets, DOCS_PAGE, docsContentSecurityPolicy } from '../../openapi/docs-page';

// The reference's assets change only with the swagger-ui-dist version; a day keeps reloads fast.
const ASSET_CACHE_SECONDS = 86_400;

/** `/openapi.json`, and `/docs`: the document built once at start, rendered by Swagger UI. */
export function docsRoutes(getDocument: () => OpenApiDocument) {
  const assets = createDocsAssets();
  const policy = () => docsContentSecurityPolicy(new URL(getDocument().servers?.[0]?.url ?? 'http://localhost').origin);
  return [
    defineRoute({
      method: 'get',
      path: '/openapi.json',
      operationId: 'openApiDocument',
      summary: 'The OpenAPI 3.1 description of this API',
      tag: 'Operations',
      access: { kind: 'public' },
      success: { status: 200, description: 'The document.', schema: z.object({ openapi: z.string() }).passthrough() },
      errors: [],
      async handler() {
        return getDocument();
      },
    }),
    defineRoute({
      method: 'get',
      path: '/docs',
      operationId: 'apiReference',
      summary: 'The API reference, rendered as HTML (works offline)',
      description: 'Every operation with its parameters, schemas and examples, and "Try it out" to call it from the page.',
      tag: 'Operations',
      access: { kind: 'public' },
      success: { status: 200, description: 'An HTML page.', schema: z.string(), contentType: 'text/html' },
      errors: [],
      async handler({ req, res }) {
        // The page names its assets relative to itself (`docs/…`, so it works under a proxy's path
        // prefix too); from `/docs/` they would be `/docs/docs/…`. Relative as well: `../docs`.
        if (req.path.endsWith('/')) {
          res.redirect(301, '../docs');
          return undefined;
        }
        res.set('Content-Security-Policy', policy()).type('html').send(DOCS_PAGE);
        return undefined;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/docs/{asset}',
      operationId: 'apiReferenceAsset',
      summary: "A script or stylesheet of the API reference page (Swagger UI's, served from this gateway)",
      tag: 'Operations',
      access: { kind: 'public' },
      params: z.object({ asset: z.string().min(1).max(64) }),
      success: { status: 200, description: 'The file: a script or a stylesheet.', schema: z.string(), contentType: 'text/javascript', otherContentTypes: ['text/css'] },
      errors: ['not_found'],
      async handler({ params, res }) {
        const asset = assets(params.asset);
        if (!asset) throw notFound('file');
        res
          .set('Cache-Control', `public, max-age=${ASSET_CACHE_SECONDS}`)
          .set('X-Content-Type-Options', 'nosniff')
          .type(asset.contentType)
          .send(asset.body);
        return undefined;
      },
    }),
  ];
}
