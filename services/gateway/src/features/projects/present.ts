import type { Project } from '@mailroom/db';
import { z } from 'zod';
import { timestamp } from '../../schemas/common';

export const projectSchema = z
  .object({
    object: z.literal('project'),
    id: z.string().meta({ example: 'proj_01JD0000000000000000000000' }),
    name: z.string(),
    trackOpens: z.boolean().meta({ description: 'Default for sends that do not set trackOpens.' }),
    trackClicks: z.boolean().meta({ description: 'Default for sends that do not set trackClicks.' }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Project' });

export type ProjectBody = z.infer<typeof projectSchema>;

export function presentProject(project: Project): ProjectBody {
  return {
    object: 'project',
    id: project.id,
    name: project.name,
    trackOpens: project.trackOpens,
    trackClicks: project.trackClicks,
    createdAt: project.createdAt.toISOString(),
    updatedAt: project.updatedAt.toISOString(),
  };
}
