import { isId, MailroomError, notFound } from '@mailroom/core';
import type { Database, Role } from '@mailroom/db';
import type { Request } from 'express';
import { isSendingRoute, type Access } from '../http/route';
import type { AuthContext, Principal } from './auth-context';

/**
 * Applies a route's access rule (DESIGN §4 "Authentication") to an authenticated caller and
 * settles the project the request acts in. The one place roles and permissions are checked.
 */
export async function authorize(db: Database, access: Access, principal: Principal, req: Request): Promise<AuthContext> {
  if (access.kind === 'public') return { principal, projectId: null, role: null };
  // Checked before anything else, so a sending key learns nothing from any other route.
  if (principal.kind === 'token' && principal.permission === 'sending_access' && !isSendingRoute(access)) {
    throw new MailroomError('restricted_api_key', 'This API key can only send emails (permission "sending_access"): POST /emails and POST /emails/batch.');
  }
  if (access.kind === 'user') {
    if (access.sessionOnly && principal.kind === 'token') throw sessionNeeded('');
    return { principal, projectId: principal.kind === 'token' ? principal.projectId : null, role: null };
  }

  if (principal.kind === 'token') {
    // Another project's path is a 404 first, as for every other resource of another project;
    // only then is the key told what it may not do in its own.
    if (access.projectFromPath && req.params.id !== principal.projectId) throw notFound('project');
    if (access.sessionOnly || access.ownerOnly) throw sessionNeeded(access.ownerOnly ? ' of a project owner' : '');
    return { principal, projectId: principal.projectId, role: null };
  }

  let projectId: string;
  let role: Role | null;
  if (access.projectFromPath) {
    projectId = String(req.params.id);
    role = await roleOf(db, principal.userId, projectId);
    // Someone else's project is indistinguishable from a missing one.
    if (!role) throw notFound('project');
  } else {
    const header = req.get('x-project-id');
    if (header === undefined || header.trim() === '') {
      throw new MailroomError('missing_required_field', 'The X-Project-Id header is required with a console session.');
    }
    projectId = header.trim();
    role = await roleOf(db, principal.userId, projectId);
    if (!role) throw new MailroomError('forbidden', 'You are not a member of the project named by X-Project-Id.');
  }
  if (access.ownerOnly && role !== 'owner') {
    throw new MailroomError('forbidden', 'Only an owner of the project can do this.');
  }
  return { principal, projectId, role };
}

function sessionNeeded(whose: string): MailroomError {
  return new MailroomError('forbidden', `This action needs a console session${whose} (X-Service-Session); API keys cannot do it.`);
}

async function roleOf(db: Database, userId: string, projectId: string): Promise<Role | null> {
  if (!isId('project', projectId)) return null;
  const member = await db.member.findUnique({
    where: { projectId_userId: { projectId, userId } },
    select: { role: true },
  });
  return member?.role ?? null;
}
