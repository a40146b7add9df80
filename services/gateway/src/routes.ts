import type { AnyRoute } from './http/route';
import { apiKeyRoutes } from './features/api-keys/routes';
import { authRoutes } from './features/auth/routes';
import { docsRoutes } from './features/docs/routes';
import { domainRoutes } from './features/domains/routes';
import { emailRoutes } from './features/emails/routes';
import { healthRoutes } from './features/health/routes';
import { memberRoutes } from './features/members/routes';
import { projectRoutes } from './features/projects/routes';
import { receivedRoutes } from './features/received/routes';
import { routeRoutes } from './features/routes/routes';
import { statsRoutes } from './features/stats/routes';
import { suppressionRoutes } from './features/suppressions/routes';
import { webhookDeliveryRoutes } from './features/webhooks/delivery-routes';
import { webhookEndpointRoutes } from './features/webhooks/routes';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi/document';

/** Every endpoint of the gateway, and the OpenAPI document generated from exactly that list. */
export function allRoutes(serverUrl: string): { routes: AnyRoute[]; document: OpenApiDocument } {
  let document: OpenApiDocument | undefined;
  const routes: AnyRoute[] = [
    ...authRoutes,
    ...projectRoutes,
    ...memberRoutes,
    ...apiKeyRoutes,
    // Before the sent emails' routes, so `/emails/received` is not read as `/emails/{id}`.
    ...receivedRoutes,
    ...emailRoutes,
    ...routeRoutes,
    ...suppressionRoutes,
    ...statsRoutes,
    ...domainRoutes,
    ...webhookEndpointRoutes,
    ...webhookDeliveryRoutes,
    ...healthRoutes,
    ...docsRoutes(() => {
      if (!document) throw new Error('OpenAPI document requested before it was built');
      return document;
    }),
  ];
  document = buildOpenApiDocument(routes, serverUrl);
  return { routes, document };
}
