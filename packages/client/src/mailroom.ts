import { checkCredential, checkMaxRetries, checkTimeoutMs } from './checks.ts';
import { type Credentials, HttpClient } from './http-client.ts';
import type { Operation, RequestBody, SuccessBody } from './operation-types.ts';
import { type ClientSettings, DEFAULT_BASE_URL, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, type RequestOptions } from './request-options.ts';
import { ApiKeys } from './resources/api-keys.ts';
import { Auth } from './resources/auth.ts';
import { Emails } from './resources/emails.ts';
import { Members } from './resources/members.ts';
import { Projects } from './resources/projects.ts';
import { ReceivedEmails } from './resources/received-emails.ts';
import { Domains } from './resources/domains.ts';
import { Routes } from './resources/routes.ts';
import { StatsResource } from './resources/stats.ts';
import { Suppressions } from './resources/suppressions.ts';
import { Webhooks } from './resources/webhooks.ts';

/** A project API key (`mr_…`): what applications use. */
export interface ApiTokenAuth {
  apiToken: string;
  sessionToken?: undefined;
  projectId?: undefined;
}

/** A console session (from `Mailroom.login` or `Mailroom.signup`) acting in one project. */
export interface SessionAuth {
  sessionToken: string;
  /** The project (`proj_…`) the session acts in. */
  projectId: string;
  apiToken?: undefined;
}

/** How to construct a client: one of the two ways to authenticate, and optional settings. */
export type MailroomOptions = ClientSettings & (ApiTokenAuth | SessionAuth);

export type SignupParams = ClientSettings & RequestBody<Operation<'/auth/signup', 'post'>>;
export type LoginParams = ClientSettings & RequestBody<Operation<'/auth/login', 'post'>>;
/** A new user's session, the user, and the project they own. */
export type Signup = SuccessBody<Operation<'/auth/signup', 'post'>>;
/** A session, the user, and the projects they belong to. */
export type Login = SuccessBody<Operation<'/auth/login', 'post'>>;

/**
 * The Mailroom API client.
 *
 * ```ts
 * const mailroom = new Mailroom({ apiToken: process.env.MAILROOM_API_KEY! });
 * const { id } = await mailroom.emails.send({ from: 'a@acme.example', to: 'b@example.com', subject: 'Hi', text: 'Hello' });
 * ```
 */
export class Mailroom {
  readonly emails: Emails;
  readonly receivedEmails: ReceivedEmails;
  readonly projects: Projects;
  readonly members: Members;
  readonly apiKeys: ApiKeys;
  readonly routes: Routes;
  readonly domains: Domains;
  readonly suppressions: Suppressions;
  readonly stats: StatsResource;
  readonly webhooks: Webhooks;
  readonly auth: Auth;

  constructor(options: MailroomOptions) {
    const http = httpClient(options, credentialsOf(options));
    this.emails = new Emails(http);
    this.receivedEmails = new ReceivedEmails(http);
    this.projects = new Projects(http);
    this.members = new Members(http);
    this.apiKeys = new ApiKeys(http);
    this.routes = new Routes(http);
    this.domains = new Domains(http);
    this.suppressions = new Suppressions(http);
    this.stats = new StatsResource(http);
    this.webhooks = new Webhooks(http);
    this.auth = new Auth(http);
  }

  /** Creates a user and their first project, and answers a console session for them. */
  static signup(params: SignupParams, options?: RequestOptions): Promise<Signup> {
    const { baseUrl, timeoutMs, maxRetries, fetch, ...body } = params;
    return httpClient({ baseUrl, timeoutMs, maxRetries, fetch }, null).call('post', '/auth/signup', { body }, options);
  }

  /** Signs in: answers a console session and the user's projects. */
  static login(params: LoginParams, options?: RequestOptions): Promise<Login> {
    const { baseUrl, timeoutMs, maxRetries, fetch, ...body } = params;
    return httpClient({ baseUrl, timeoutMs, maxRetries, fetch }, null).call('post', '/auth/login', { body }, options);
  }
}

function httpClient(settings: ClientSettings, credentials: Credentials): HttpClient {
  const baseUrl = settings.baseUrl ?? DEFAULT_BASE_URL;
  if (!/^https?:\/\/[^/]/.test(baseUrl)) {
    throw new TypeError(`Mailroom: baseUrl must be an http(s) URL such as "https://mail.example.com"; got ${JSON.stringify(baseUrl)}.`);
  }
  const timeoutMs = checkTimeoutMs(settings.timeoutMs ?? DEFAULT_TIMEOUT_MS, 'timeoutMs');
  const maxRetries = checkMaxRetries(settings.maxRetries ?? DEFAULT_MAX_RETRIES, 'maxRetries');
  if (typeof (settings.fetch ?? globalThis.fetch) !== 'function') throw new TypeError('Mailroom: no fetch on this platform; pass one as the `fetch` option.');
  return new HttpClient({
    baseUrl: baseUrl.replace(/\/+$/, ''),
    credentials,
    timeoutMs,
    maxRetries,
    // Called unbound, a browser's fetch throws "Illegal invocation".
    fetch: settings.fetch ?? ((input, init) => globalThis.fetch(input, init)),
  });
}

/** The credentials of the options, or a TypeError saying what is wrong with them. */
function credentialsOf(options: MailroomOptions): Credentials {
  const { apiToken, sessionToken, projectId } = (options ?? {}) as Partial<Record<'apiToken' | 'sessionToken' | 'projectId', unknown>>;
  const given = (value: unknown) => value !== undefined && value !== null;
  if (given(apiToken) && (given(sessionToken) || given(projectId))) {
    throw new TypeError('Mailroom: pass either apiToken, or sessionToken with projectId, not both.');
  }
  if (given(apiToken)) {
    if (typeof apiToken !== 'string' || apiToken === '') throw new TypeError('Mailroom: apiToken must be a non-empty string (an API key, mr_…).');
    return { apiToken: checkCredential(apiToken, 'apiToken') };
  }
  if (!given(sessionToken)) {
    throw new TypeError(
      given(projectId)
        ? 'Mailroom: projectId was given without sessionToken; a console session needs both (an API key needs neither).'
        : 'Mailroom: pass apiToken (an API key, mr_…), or sessionToken with projectId (a console session from Mailroom.login).',
    );
  }
  if (typeof sessionToken !== 'string' || sessionToken === '') throw new TypeError('Mailroom: sessionToken must be a non-empty string.');
  if (!given(projectId)) throw new TypeError('Mailroom: a sessionToken needs a projectId (proj_…): the project the session acts in.');
  if (typeof projectId !== 'string' || !projectId.startsWith('proj_')) {
    throw new TypeError(`Mailroom: projectId must be a project id beginning with "proj_"; got ${JSON.stringify(projectId)}.`);
  }
  return { sessionToken: checkCredential(sessionToken, 'sessionToken'), projectId: checkCredential(projectId, 'projectId') };
}
