/** A small HTTP client for tests: real requests, JSON in and out. */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface Credentials {
  token?: string;
  session?: string;
  project?: string;
}

export interface RequestOptions extends Credentials {
  body?: unknown;
  /** Sent as is, not JSON-encoded. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export function apiClient(baseUrl: string, defaults: Credentials = {}) {
  async function request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const { token, session, project } = { ...defaults, ...options };
    const headers: Record<string, string> = { ...options.headers };
    if (token) headers.authorization = `Bearer ${token}`;
    if (session) headers['x-service-session'] = session;
    if (project) headers['x-project-id'] = project;
    let body: string | Buffer | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${baseUrl}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }
  return {
    request,
    get: <T = any>(path: string, o?: RequestOptions) => request<T>('GET', path, o),
    post: <T = any>(path: string, body?: unknown, o?: RequestOptions) => request<T>('POST', path, { ...o, body }),
    patch: <T = any>(path: string, body?: unknown, o?: RequestOptions) => request<T>('PATCH', path, { ...o, body }),
    delete: <T = any>(path: string, o?: RequestOptions) => request<T>('DELETE', path, o),
    as: (credentials: Credentials) => apiClient(baseUrl, credentials),
  };
}

export type ApiClient = ReturnType<typeof apiClient>;
