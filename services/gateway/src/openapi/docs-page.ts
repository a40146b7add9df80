import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The API reference is Swagger UI, served from the `swagger-ui-dist` package by the gateway
 * itself: nothing is fetched from elsewhere, so it works offline and in locked-down networks.
 * Paths are relative, so the page also works behind a proxy that mounts the API under a prefix.
 */
export const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Mailroom API reference</title>
<link rel="stylesheet" href="docs/swagger-ui.css">
</head>
<body>
<div id="reference"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/reference.js"></script>
</body>
</html>
`;

// validatorUrl: null, or Swagger UI would send the document to an online validator for a badge.
const REFERENCE_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: new URL('openapi.json', window.location.href).href,
    dom_id: '#reference',
    deepLinking: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 1,
    defaultModelExpandDepth: 3,
    displayRequestDuration: true,
    filter: true,
    validatorUrl: null,
  });
});
`;

export interface DocsAsset {
  contentType: string;
  body: Buffer;
}

const SWAGGER_UI_FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

/** The files the reference page loads, by name; read once, on first use. */
export function createDocsAssets(): (name: string) => DocsAsset | undefined {
  const cache = new Map<string, DocsAsset>();
  const distDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  return (name) => {
    const cached = cache.get(name);
    if (cached) return cached;
    let asset: DocsAsset | undefined;
    if (name === 'reference.js') asset = { contentType: 'text/javascript; charset=utf-8', body: Buffer.from(REFERENCE_SCRIPT) };
    else if (Object.hasOwn(SWAGGER_UI_FILES, name)) {
      asset = { contentType: SWAGGER_UI_FILES[name] as string, body: readFileSync(path.join(distDir, name)) };
    }
    if (asset) cache.set(name, asset);
    return asset;
  };
}

/**
 * Scripts and styles only from this origin; Swagger UI styles some elements inline and draws
 * icons as data: images. `apiOrigin` is where "Try it out" sends requests (PUBLIC_API_URL).
 */
export function docsContentSecurityPolicy(apiOrigin: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src 'self' ${apiOrigin}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
