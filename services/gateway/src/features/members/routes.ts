import { z } from 'zod';
import { scopedProjectId } from '../../auth/auth-context';
import { listQueryFor, toPage } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { deletedSchema, emailField, listSchema, timestamp } from '../../schemas/common';
import { addMember, changeMemberRole, listMembers, removeMember, type MemberView } from './members';

const memberSchema = z
  .object({
    object: z.literal('member'),
    id: z.string().meta({ description: 'The user id (usr_…).' }),
    email: z.string(),
    role: z.enum(['owner', 'member']),
    createdAt: timestamp.meta({ description: 'When the user joined the project.' }),
  })
  .meta({ id: 'Member' });

const present = (m: MemberView): z.infer<typeof memberSchema> => ({
  object: 'member',
  id: m.userId,
  email: m.email,
  role: m.role,
  createdAt: m.createdAt.toISOString(),
});

export const memberRoutes = [
  defineRoute({
    method: 'post',
    path: '/projects/{id}/members',
    operationId: 'addMember',
    summary: 'Add an existing user to a project',
    description: 'Owner-only (console session).',
    tag: 'Members',
    access: { kind: 'project', projectFromPath: true, ownerOnly: true },
    params: z.object({ id: z.string() }),
    body: z.object({ email: emailField, role: z.enum(['owner', 'member']).default('member') }).meta({ id: 'AddMemberRequest' }),
    success: { status: 201, description: 'The new member.', schema: memberSchema },
    errors: ['conflict'],
    async handler({ body, auth, ctx }) {
      return present(await addMember(ctx.db, scopedProjectId(auth), body.email, body.role));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/projects/{id}/members',
    operationId: 'listMembers',
    summary: "List a project's members",
    tag: 'Members',
    access: { kind: 'project', projectFromPath: true },
    params: z.object({ id: z.string() }),
    query: listQueryFor('user'),
    success: { status: 200, description: 'Members, newest user first (by id).', schema: listSchema(memberSchema) },
    errors: [],
    async handler({ query, auth, ctx }) {
      return toPage(await listMembers(ctx.db, scopedProjectId(auth), query), query, present);
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/projects/{id}/members/{userId}',
    operationId: 'updateMember',
    summary: "Change a member's role",
    description: 'Owner-only (console session). The last owner cannot be demoted (409).',
    tag: 'Members',
    access: { kind: 'project', projectFromPath: true, ownerOnly: true },
    params: z.object({ id: z.string(), userId: z.string().min(1).max(64) }),
    body: z.object({ role: z.enum(['owner', 'member']) }).meta({ id: 'UpdateMemberRequest' }),
    success: { status: 200, description: 'The member with the new role.', schema: memberSchema },
    errors: ['conflict'],
    async handler({ params, body, auth, ctx }) {
      return present(await changeMemberRole(ctx.db, scopedProjectId(auth), params.userId, body.role));
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/projects/{id}/members/{userId}',
    operationId: 'removeMember',
    summary: 'Remove a member from a project',
    description: 'Owner-only (console session). The last owner cannot be removed (409).',
    tag: 'Members',
    access: { kind: 'project', projectFromPath: true, ownerOnly: true },
    params: z.object({ id: z.string(), userId: z.string().min(1).max(64) }),
    success: { status: 200, description: 'The member was removed.', schema: deletedSchema('member') },
    errors: ['conflict'],
    async handler({ params, auth, ctx }) {
      await removeMember(ctx.db, scopedProjectId(auth), params.userId);
      return { object: 'member', id: params.userId, deleted: true };
    },
  }),
];
