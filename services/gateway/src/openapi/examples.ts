import { DOMAIN_EXAMPLES } from '../features/domains/examples';
import { STATS_EXAMPLES } from '../features/stats/examples';
import { WEBHOOK_EXAMPLES } from './webhook-examples';

/**
 * An example request and response for every operation, keyed by operationId and merged into the
 * OpenAPI document. A test parses each one with its route's own schemas, so they cannot drift.
 */
export interface OperationExample {
  /** Path parameters, as they appear in the URL. */
  params?: Record<string, string>;
  /** Query parameters, as they appear in the URL. */
  query?: Record<string, string>;
  /** The request body, as a client sends it. */
  request?: unknown;
  /** The success response body. */
  response: unknown;
}

const PROJECT_ID = 'proj_01KAQ3J8ZK4W6T2M9R5N7B3C1D';
const USER_ID = 'usr_01KAQ3J8ZJ0X2Y4V6T8R0P2N4M';
const EMAIL_ID = 'em_01KAQ4B2C3D4E5F6G7H8J9K0MN';
const KEY_ID = 'key_01KAQ3M5N6P7Q8R9S0T1V2W3XY';
const CREATED = '2026-11-21T10:00:00.000Z';
const SESSION_TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c3JfMDFLQVEzSjhaSjBYMlk0VjZUOFIwUDJONE0iLCJpYXQiOjE3OTUyNTYwMDAsImV4cCI6MTc5NTI5OTIwMH0.2mB0nYd7hQ1Jtq6v3Vw8k0sX4o5pL9rE1uA7cI2fG3s';

const user = { object: 'user', id: USER_ID, email: 'ada@acme.example', createdAt: CREATED };
const project = {
  object: 'project',
  id: PROJECT_ID,
  name: 'Acme',
  trackOpens: false,
  trackClicks: false,
  createdAt: CREATED,
  updatedAt: CREATED,
};
const member = { object: 'member', id: USER_ID, email: 'ada@acme.example', role: 'owner', createdAt: CREATED };
const apiKey = {
  object: 'api_key',
  id: KEY_ID,
  name: 'backend',
  permission: 'full_access',
  tokenStart: 'mr_Qk3v',
  createdAt: CREATED,
  lastUsedAt: '2026-11-21T10:05:00.000Z',
};
const send = {
  from: 'Acme <hello@acme.example>',
  to: ['alice@example.com'],
  subject: 'Welcome to Acme',
  html: '<p>Hi Alice, welcome aboard.</p>',
  text: 'Hi Alice, welcome aboard.',
  tags: [{ name: 'kind', value: 'welcome' }],
};
const summary = {
  object: 'email',
  id: EMAIL_ID,
  from: 'Acme <hello@acme.example>',
  to: ['alice@example.com', 'bob@example.com'],
  cc: [],
  bcc: [],
  replyTo: [],
  subject: 'Welcome to Acme',
  tags: [{ name: 'kind', value: 'welcome' }],
  scheduledAt: null,
  createdAt: CREATED,
  trackOpens: false,
  trackClicks: false,
  status: 'delivery_delayed',
  lastEvent: 'email.delivery_delayed',
  recipients: [
    {
      email: 'alice@example.com',
      kind: 'to',
      status: 'delivered',
      attempts: 1,
      lastResponse: '250 2.0.0 OK queued as 4XkQ2b',
      nextAttemptAt: null,
      opens: 0,
      clicks: 0,
      firstOpenedAt: null,
    },
    {
      email: 'bob@example.com',
      kind: 'to',
      status: 'delivery_delayed',
      attempts: 1,
      lastResponse: '451 4.7.1 Greylisted, try again in 300 seconds',
      nextAttemptAt: '2026-11-21T10:05:01.000Z',
      opens: 0,
      clicks: 0,
      firstOpenedAt: null,
    },
  ],
};
const eventData = { email_id: EMAIL_ID, from: summary.from, to: summary.to, subject: summary.subject, tags: summary.tags };
const email = {
  ...summary,
  html: send.html,
  text: send.text,
  events: [
    { id: 'evt_01KAQ4B2D0A1B2C3D4E5F6G7H8', type: 'email.sent', created_at: '2026-11-21T10:00:01.000Z', data: { ...eventData, recipient: 'alice@example.com', attempt: 1 } },
    {
      id: 'evt_01KAQ4B2D1A1B2C3D4E5F6G7H8',
      type: 'email.delivered',
      created_at: '2026-11-21T10:00:01.200Z',
      data: { ...eventData, recipient: 'alice@example.com', attempt: 1, smtp: { code: 250, enhanced_code: '2.0.0', message: 'OK queued as 4XkQ2b' } },
    },
    {
      id: 'evt_01KAQ4B2D2A1B2C3D4E5F6G7H8',
      type: 'email.delivery_delayed',
      created_at: '2026-11-21T10:00:01.300Z',
      data: { ...eventData, recipient: 'bob@example.com', attempt: 1, smtp: { code: 451, enhanced_code: '4.7.1', message: 'Greylisted, try again in 300 seconds' } },
    },
  ],
};
const scheduled = {
  ...email,
  status: 'canceled',
  lastEvent: null,
  scheduledAt: '2030-01-01T09:00:00.000Z',
  recipients: [{ email: 'alice@example.com', kind: 'to', status: 'canceled', attempts: 0, lastResponse: null, nextAttemptAt: null, opens: 0, clicks: 0, firstOpenedAt: null }],
  to: ['alice@example.com'],
  events: [],
};
const suppression = {
  object: 'suppression',
  id: 'gone@example.com',
  email: 'gone@example.com',
  reason: 'bounce',
  detail: '550 5.1.1 <gone@example.com>: Recipient address rejected: User unknown',
  sourceEmailId: EMAIL_ID,
  createdAt: CREATED,
};

const ROUTE_ID = 'rt_01KAQ7D1E2F3G4H5J6K7M8N9P0';
const RECEIVED_ID = 'inb_01KAQ8D1E2F3G4H5J6K7M8N9P0';
const ATTACHMENT_ID = 'att_01KAQ8E1F2G3H4J5K6M7N8P9Q0';
const route = { object: 'route', id: ROUTE_ID, match: 'support@acme.example', name: 'Support inbox', createdAt: CREATED };
const receivedSummary = {
  object: 'received_email',
  id: RECEIVED_ID,
  routeId: ROUTE_ID,
  from: { address: 'alice@example.com', name: 'Alice' },
  to: [{ address: 'support@acme.example', name: 'Acme Support' }],
  cc: [],
  replyTo: [],
  subject: 'Re: Welcome to Acme',
  messageId: '<CAF3x1q@mail.example.com>',
  inReplyTo: '<em_01KAQ4B2C3D4E5F6G7H8J9K0MN@acme.example>',
  references: ['<em_01KAQ4B2C3D4E5F6G7H8J9K0MN@acme.example>'],
  date: '2026-11-21T10:14:59.000Z',
  envelope: { mailFrom: 'alice@example.com', rcptTo: ['support@acme.example'], remoteAddress: '198.51.100.23', helo: 'mail.example.com' },
  attachments: [{ id: ATTACHMENT_ID, filename: 'screenshot.png', contentType: 'image/png', size: 48213, contentId: null, disposition: 'attachment' }],
  authentication: {
    spf: { result: 'pass', domain: 'example.com' },
    dkim: [{ result: 'pass', domain: 'example.com', selector: 's1', aligned: true }],
    dmarc: { result: 'pass', policy: 'reject', domain: 'example.com' },
    arc: { result: 'none' },
  },
  size: 71234,
  createdAt: '2026-11-21T10:15:00.000Z',
};
const receivedEmail = {
  ...receivedSummary,
  text: 'Thanks, that worked!\n\nOn Sat, 21 Nov 2026 at 10:00, Acme wrote:\n> Hi Alice, welcome aboard.',
  html: '<p>Thanks, that worked!</p><blockquote>Hi Alice, welcome aboard.</blockquote>',
  textReply: 'Thanks, that worked!',
  headers: [
    { name: 'Received', value: 'from mail.example.com (mail.example.com [198.51.100.23]) by mx.acme.example' },
    { name: 'From', value: 'Alice <alice@example.com>' },
    { name: 'To', value: 'Acme Support <support@acme.example>' },
    { name: 'Subject', value: 'Re: Welcome to Acme' },
  ],
};

export const OPERATION_EXAMPLES: Readonly<Record<string, OperationExample>> = {
  ...WEBHOOK_EXAMPLES,
  signUp: {
    request: { email: 'ada@acme.example', password: 'correct horse battery staple', projectName: 'Acme' },
    response: { sessionToken: SESSION_TOKEN, user, project },
  },
  logIn: {
    request: { email: 'ada@acme.example', password: 'correct horse battery staple' },
    response: { sessionToken: SESSION_TOKEN, user, projects: [project] },
  },
  logOut: { response: { object: 'session', revoked: true, expiresAt: '2026-11-21T22:00:00.000Z' } },
  createProject: {
    request: { name: 'Acme staging', trackOpens: true, trackClicks: false },
    response: { ...project, id: 'proj_01KAQ5C6D7E8F9G0H1J2K3M4N5', name: 'Acme staging', trackOpens: true },
  },
  listProjects: { response: { object: 'list', data: [project], hasMore: false } },
  getProject: { params: { id: PROJECT_ID }, response: project },
  updateProject: {
    params: { id: PROJECT_ID },
    request: { trackOpens: true, trackClicks: true },
    response: { ...project, trackOpens: true, trackClicks: true, updatedAt: '2026-11-21T11:00:00.000Z' },
  },
  addMember: {
    params: { id: PROJECT_ID },
    request: { email: 'grace@acme.example', role: 'member' },
    response: { object: 'member', id: 'usr_01KAQ6A1B2C3D4E5F6G7H8J9K0', email: 'grace@acme.example', role: 'member', createdAt: CREATED },
  },
  listMembers: { params: { id: PROJECT_ID }, response: { object: 'list', data: [member], hasMore: false } },
  updateMember: {
    params: { id: PROJECT_ID, userId: 'usr_01KAQ6A1B2C3D4E5F6G7H8J9K0' },
    request: { role: 'owner' },
    response: { object: 'member', id: 'usr_01KAQ6A1B2C3D4E5F6G7H8J9K0', email: 'grace@acme.example', role: 'owner', createdAt: CREATED },
  },
  removeMember: {
    params: { id: PROJECT_ID, userId: 'usr_01KAQ6A1B2C3D4E5F6G7H8J9K0' },
    response: { object: 'member', id: 'usr_01KAQ6A1B2C3D4E5F6G7H8J9K0', deleted: true },
  },
  createApiKey: {
    request: { name: 'backend', permission: 'sending_access' },
    response: {
      object: 'api_key',
      id: KEY_ID,
      name: 'backend',
      permission: 'sending_access',
      token: 'mr_Qk3vX9a2LpT7wE4rY6uI8oP0sD1fG3hJ5kL7zX9cV2b',
      createdAt: CREATED,
    },
  },
  listApiKeys: { query: { limit: '20' }, response: { object: 'list', data: [apiKey], hasMore: false } },
  revokeApiKey: { params: { id: KEY_ID }, response: { object: 'api_key', id: KEY_ID, deleted: true } },
  sendEmail: { request: send, response: { id: EMAIL_ID } },
  sendEmailBatch: {
    request: [send, { from: send.from, to: 'bob@example.com', subject: 'Your invoice', text: 'Invoice 42 is ready in your account.' }],
    response: { data: [{ id: EMAIL_ID }, { id: 'em_01KAQ4B2C3D4E5F6G7H8J9K0MP' }] },
  },
  listEmails: {
    query: { limit: '2', after: 'em_01KAQ4Z9Y8X7W6V5T4S3R2Q1P0', status: 'delivery_delayed', to: 'bob@example.com' },
    response: { object: 'list', data: [summary], hasMore: true },
  },
  getEmail: { params: { id: EMAIL_ID }, response: email },
  cancelEmail: { params: { id: EMAIL_ID }, response: scheduled },
  listEmailClicks: {
    params: { id: EMAIL_ID },
    response: {
      object: 'list',
      data: [
        {
          object: 'link_clicks',
          link: 'https://acme.example/pricing',
          clicks: 3,
          uniqueClicks: 2,
          botClicks: 1,
          firstClickedAt: '2026-11-21T10:12:40.000Z',
          lastClickedAt: '2026-11-21T14:03:09.000Z',
        },
      ],
      hasMore: false,
    },
  },
  listSuppressions: { query: { limit: '50' }, response: { object: 'list', data: [suppression], hasMore: false } },
  getSuppression: { params: { email: 'gone@example.com' }, response: suppression },
  deleteSuppression: { params: { email: 'gone@example.com' }, response: { object: 'suppression', id: 'gone@example.com', deleted: true } },
  createRoute: { request: { match: 'support@acme.example', name: 'Support inbox' }, response: route },
  listRoutes: { query: { limit: '20' }, response: { object: 'list', data: [route, { ...route, id: 'rt_01KAQ7C0D1E2F3G4H5J6K7M8N9', match: '*@acme.example', name: null }], hasMore: false } },
  getRoute: { params: { id: ROUTE_ID }, response: route },
  updateRoute: { params: { id: ROUTE_ID }, request: { match: 'help@acme.example', name: null }, response: { ...route, match: 'help@acme.example', name: null } },
  deleteRoute: { params: { id: ROUTE_ID }, response: { object: 'route', id: ROUTE_ID, deleted: true } },
  listReceivedEmails: { query: { limit: '10', routeId: ROUTE_ID }, response: { object: 'list', data: [receivedSummary], hasMore: true } },
  getReceivedEmail: { params: { id: RECEIVED_ID }, response: receivedEmail },
  getReceivedEmailRaw: {
    params: { id: RECEIVED_ID },
    response: 'Received: from mail.example.com …\r\nFrom: Alice <alice@example.com>\r\nTo: Acme Support <support@acme.example>\r\nSubject: Re: Welcome to Acme\r\n…',
  },
  getReceivedAttachment: { params: { id: RECEIVED_ID, attachmentId: ATTACHMENT_ID }, response: '(the attachment\'s bytes)' },
  health: { response: { status: 'ok' } },
  ready: { response: { status: 'ready', checks: { postgres: 'ok', redis: 'ok', migrations: 'ok', shuttingDown: false } } },
  metrics: { response: '# HELP http_requests_total Requests answered.\n# TYPE http_requests_total counter\nhttp_requests_total{method="POST",route="/emails",status="200"} 42\n' },
  openApiDocument: { response: { openapi: '3.1.0', info: { title: 'Mailroom API', version: '1.0.0' }, paths: {} } },
  apiReference: { response: '<!doctype html><html lang="en"><head><title>Mailroom API reference</title>…' },
  apiReferenceAsset: { params: { asset: 'swagger-ui.css' }, response: '.swagger-ui{…}' },
  ...DOMAIN_EXAMPLES,
  ...STATS_EXAMPLES,
};
