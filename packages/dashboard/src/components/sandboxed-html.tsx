import { useState } from 'preact/hooks';

// Inside the frame: nothing but the message's own inline styles and embedded images (data:,
// cid:) unless the person asks for remote images. This only narrows the dashboard's policy,
// which srcdoc frames inherit (and which forbids scripts anyway).
const BLOCKED = "default-src 'none'; img-src data: cid:; style-src 'unsafe-inline'";
const REMOTE_IMAGES = "default-src 'none'; img-src https: data: cid:; style-src 'unsafe-inline'";

/** The document the frame shows: a policy first, so it governs everything the message contains. */
export function framedDocument(html: string, remoteImages: boolean): string {
  const policy = remoteImages ? REMOTE_IMAGES : BLOCKED;
  return `<!doctype html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${policy}">${html}`;
}

/**
 * Whether the HTML asks for images over plain http:. The dashboard's own policy (which a srcdoc
 * frame inherits) allows https: images only, so those stay blocked even when remote images are
 * loaded, and the person is told so rather than left with broken images and no reason.
 */
export function hasInsecureImages(html: string): boolean {
  return /\b(?:src|background|srcset)\s*=\s*["']?\s*http:|url\(\s*["']?\s*http:/i.test(html);
}

/**
 * An email's HTML, shown so that it can do nothing: a frame with an empty `sandbox` (no scripts,
 * no same origin, no forms, no popups, no top navigation) and a content policy that blocks
 * remote images — which would tell the sender that, when and where the message was read —
 * until the person chooses "Load remote images".
 */
export function SandboxedHtml({ html, title }: { html: string; title: string }) {
  const [remoteImages, setRemoteImages] = useState(false);
  return (
    <div class="sandboxed-html">
      <div class="sandbox-bar">
        {remoteImages ? (
          <span class="muted small">
            Remote images are loaded: the sender can see that this message was opened.
            {hasInsecureImages(html) && ' Images over plain http: stay blocked: only https: images load here.'}
          </span>
        ) : (
          <>
            <span class="muted small">Remote images are blocked so viewing this message does not reveal you to its sender.</span>
            <button type="button" class="secondary small" onClick={() => setRemoteImages(true)}>
              Load remote images
            </button>
          </>
        )}
      </div>
      <iframe title={title} sandbox="" srcdoc={framedDocument(html, remoteImages)} referrerpolicy="no-referrer" />
    </div>
  );
}
