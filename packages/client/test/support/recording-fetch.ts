/** One request the client made, and what came back. */
export interface RecordedCall {
  method: string;
  url: URL;
  headers: Headers;
  status: number | null;
  requestId: string | null;
  /** The answer's headers (`retry-after`, `ratelimit-*`), once it came. */
  responseHeaders: Headers | null;
}

/** The platform's fetch, recording each request: what the client sent is checked, not assumed. */
export function recordingFetch(): { fetch: typeof fetch; calls: RecordedCall[] } {
  const calls: RecordedCall[] = [];
  const recording: typeof fetch = async (input, init) => {
    const call: RecordedCall = { method: init?.method ?? 'GET', url: new URL(String(input)), headers: new Headers(init?.headers), status: null, requestId: null, responseHeaders: null };
    calls.push(call);
    const res = await fetch(input, init);
    call.status = res.status;
    call.requestId = res.headers.get('x-request-id');
    call.responseHeaders = res.headers;
    return res;
  };
  return { fetch: recording, calls };
}
