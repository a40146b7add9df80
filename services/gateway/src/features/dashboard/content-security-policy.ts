/**
 * The dashboard's policy. Scripts and styles only from its own files (nothing inline can run);
 * API calls to this origin only; nothing may frame it. Emails are shown in `srcdoc` frames,
 * which inherit this policy and narrow it further (see the dashboard's SandboxedHtml): so
 * `img-src` allows https: (remote images, once the person asks for them) and `style-src` allows
 * inline styles, which is how email HTML is styled; no script runs in those frames whatever
 * they contain, for `script-src` has no 'unsafe-inline' and the frames' sandbox forbids scripts.
 */
export const DASHBOARD_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: https:",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');
