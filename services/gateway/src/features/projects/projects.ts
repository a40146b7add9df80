import { type ListQuery, pageArgs } from '../../http/pagination';
import { newId, notFound } from '@mailroom/core';
import type { Database, Project } from '@mailroom/db';
import type { Principal } from '../../auth/auth-context';

export interface ProjectInput {
  name: string;
  trackOpens?: boolean | undefined;
  trackClicks?: boolean | undefined;
}

/** A new project owned by `ownerId`. */
export async function createProject(db: Database, ownerId: string, input: ProjectInput): Promise<Project> {
  return db.project.create({
    data: {
      id: newId('project'),
      name: input.name,
      trackOpens: input.trackOpens ?? false,
      trackClicks: input.trackClicks ?? false,
      members: { create: { userId: ownerId, role: 'owner' } },
    },
  });
}

/** A session sees the projects its user belongs to; a token sees its own. Newest first. */
/** The projects the principal sees (a token: its own), newest first: one page of them, or all (sign-in's answer). */
export async function listVisibleProjects(db: Database, principal: Principal, query?: ListQuery): Promise<Project[]> {
  const where = principal.kind === 'token' ? { id: principal.projectId } : { members: { some: { userId: principal.userId } } };
  if (query === undefined) return db.project.findMany({ where, orderBy: { id: 'desc' } });
  const page = pageArgs(query);
  return db.project.findMany({ ...page, where: { ...where, ...page.where } });
}

export async function getProject(db: Database, id: string): Promise<Project> {
  const project = await db.project.findUnique({ where: { id } });
  if (!project) throw notFound('project');
  return project;
}

export async function updateProject(db: Database, id: string, changes: Partial<ProjectInput>): Promise<Project> {
  return db.project.update({ where: { id }, data: changes });
}
