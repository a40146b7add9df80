import type { User } from '@mailroom/db';
import { z } from 'zod';
import { consumeRateLimit, loginClientKey } from '../../http/rate-limit';
import { defineRoute } from '../../http/route';
import { emailField, nameField, passwordField, timestamp } from '../../schemas/common';
import { presentProject, projectSchema } from '../projects/present';
import { listVisibleProjects } from '../projects/projects';
import { checkCredentials, createAccount } from './accounts';

const userSchema = z
  .object({ object: z.literal('user'), id: z.string(), email: z.string(), createdAt: timestamp })
  .meta({ id: 'User' });

const presentUser = (user: User): z.infer<typeof userSchema> => ({
  object: 'user',
  id: user.id,
  email: user.email,
  createdAt: user.createdAt.toISOString(),
});

const sessionToken = z.string().meta({ description: 'Send as X-Service-Session, with X-Project-Id.' });

export const authRoutes = [
  defineRoute({
    method: 'post',
    path: '/auth/signup',
    operationId: 'signUp',
    summary: 'Sign up: a user, their first project, and a console session',
    description: 'Open while no user exists unless ALLOW_SIGNUP says otherwise. Rate-limited per client IP.',
    tag: 'Console sessions',
    access: { kind: 'public' },
    body: z.object({ email: emailField, password: passwordField, projectName: nameField.optional() }).meta({ id: 'SignupRequest' }),
    success: {
      status: 201,
      description: 'The new user, the project they own, and a session token.',
      schema: z.object({ sessionToken, user: userSchema, project: projectSchema }),
    },
    errors: ['forbidden', 'conflict', 'rate_limit_exceeded'],
    async handler({ body, ctx, req, res }) {
      await consumeRateLimit(ctx.rateLimits.perLoginIp, loginClientKey(req, ctx.config.gatewayTrustProxy), res);
      const created = await createAccount(ctx.db, body, { allowSignup: ctx.config.allowSignup });
      if (!created) throw new Error('createAccount returned nothing outside the bootstrap');
      return {
        sessionToken: (await ctx.sessions.issue(created.user.id)).token,
        user: presentUser(created.user),
        project: presentProject(created.project),
      };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/auth/login',
    operationId: 'logIn',
    summary: 'Sign in and get a console session',
    description: 'Rate-limited per client IP.',
    tag: 'Console sessions',
    access: { kind: 'public' },
    body: z.object({ email: emailField, password: z.string().min(1).max(256) }).meta({ id: 'LoginRequest' }),
    success: {
      status: 200,
      description: "A session token, the user and the user's projects.",
      schema: z.object({ sessionToken, user: userSchema, projects: z.array(projectSchema) }),
    },
    errors: ['invalid_credentials', 'rate_limit_exceeded'],
    async handler({ body, ctx, req, res }) {
      await consumeRateLimit(ctx.rateLimits.perLoginIp, loginClientKey(req, ctx.config.gatewayTrustProxy), res);
      const user = await checkCredentials(ctx.db, body.email, body.password);
      const { token, session } = await ctx.sessions.issue(user.id);
      const projects = await listVisibleProjects(ctx.db, { kind: 'session', ...session });
      return {
        sessionToken: token,
        user: presentUser(user),
        projects: projects.map(presentProject),
      };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/auth/logout',
    operationId: 'logOut',
    summary: 'Sign out: revoke this console session',
    description:
      'Revokes the session token sent in X-Service-Session (no X-Project-Id needed) on every gateway replica at once; ' +
      'it is refused with 401 `invalid_session` from then on. API keys cannot sign out (403).',
    tag: 'Console sessions',
    access: { kind: 'user', sessionOnly: true },
    success: {
      status: 200,
      description: 'The session is revoked.',
      schema: z
        .object({ object: z.literal('session'), revoked: z.literal(true), expiresAt: timestamp.meta({ description: 'When the token would have expired.' }) })
        .meta({ id: 'RevokedSession' }),
    },
    errors: [],
    async handler({ auth, ctx }) {
      if (auth.principal?.kind !== 'session') throw new Error('sessionOnly route without a session');
      await ctx.sessions.revoke(auth.principal);
      return { object: 'session', revoked: true, expiresAt: auth.principal.expiresAt.toISOString() };
    },
  }),
];
