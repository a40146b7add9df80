import { z } from 'zod';
import { listQueryFor, toPage } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { idParams, listSchema, nameField } from '../../schemas/common';
import { presentProject, projectSchema } from './present';
import { createProject, getProject, listVisibleProjects, updateProject } from './projects';
import { scopedProjectId } from '../../auth/auth-context';

const tracking = {
  trackOpens: z.boolean().optional().meta({ description: 'Track opens by default (snake_case `track_opens` also accepted).' }),
  trackClicks: z.boolean().optional().meta({ description: 'Track clicks by default (snake_case `track_clicks` also accepted).' }),
};

export const projectRoutes = [
  defineRoute({
    method: 'post',
    path: '/projects',
    operationId: 'createProject',
    summary: 'Create a project',
    description: 'Owner-only: needs a console session whose user owns the project named by X-Project-Id. The caller owns the new project.',
    tag: 'Projects',
    access: { kind: 'project', sessionOnly: true, ownerOnly: true },
    body: z.object({ name: nameField, ...tracking }).meta({ id: 'CreateProjectRequest' }),
    success: { status: 201, description: 'The new project.', schema: projectSchema },
    errors: [],
    async handler({ body, auth, ctx }) {
      if (auth.principal?.kind !== 'session') throw new Error('sessionOnly route without a session');
      return presentProject(await createProject(ctx.db, auth.principal.userId, body));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/projects',
    operationId: 'listProjects',
    summary: 'List projects',
    description: "A console session sees its user's projects (no X-Project-Id needed); an API key sees its own project.",
    tag: 'Projects',
    access: { kind: 'user' },
    query: listQueryFor('project'),
    success: { status: 200, description: 'The projects, newest first.', schema: listSchema(projectSchema) },
    errors: [],
    async handler({ query, auth, ctx }) {
      if (!auth.principal) throw new Error('user route without a principal');
      return toPage(await listVisibleProjects(ctx.db, auth.principal, query), query, presentProject);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/projects/{id}',
    operationId: 'getProject',
    summary: 'Get a project',
    tag: 'Projects',
    access: { kind: 'project', projectFromPath: true },
    params: idParams,
    success: { status: 200, description: 'The project.', schema: projectSchema },
    errors: [],
    async handler({ auth, ctx }) {
      return presentProject(await getProject(ctx.db, scopedProjectId(auth)));
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/projects/{id}',
    operationId: 'updateProject',
    summary: 'Update a project, including its default open and click tracking',
    tag: 'Projects',
    access: { kind: 'project', projectFromPath: true },
    params: idParams,
    body: z.object({ name: nameField.optional(), ...tracking }).meta({ id: 'UpdateProjectRequest' }),
    success: { status: 200, description: 'The updated project.', schema: projectSchema },
    errors: [],
    async handler({ body, auth, ctx }) {
      return presentProject(await updateProject(ctx.db, scopedProjectId(auth), body));
    },
  }),
];
