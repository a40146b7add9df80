import { z } from 'zod';
import { defineRoute } from '../../http/route';
import type { OpenApiDocument } from '../../openapi/document';
import { renderDocsPage } from '../../openapi/docs-page';

/** `/openapi.json` and `/docs`, serving the document built once at start. */
export function docsRoutes(getDocument: () => OpenApiDocument) {
  let page: string | undefined;
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
      tag: 'Operations',
      access: { kind: 'public' },
      success: { status: 200, description: 'An HTML page.', schema: z.string(), contentType: 'text/html' },
      errors: [],
      async handler({ res }) {
        page ??= renderDocsPage(getDocument());
        res.type('html').send(page);
        return undefined;
      },
    }),
  ];
}
