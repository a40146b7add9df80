import { ERROR_NAMES } from '@mailroom/core';
import { z } from 'zod';

/** The body of every failed request (DESIGN §4 "Errors"). */
export const errorSchema = z
  .object({
    name: z.enum(ERROR_NAMES as [string, ...string[]]).meta({ description: 'Machine-readable error name.' }),
    message: z.string().meta({ description: 'Human-readable explanation.' }),
    statusCode: z.number().int().meta({ description: 'The HTTP status code.' }),
  })
  .meta({ id: 'Error' });

export const timestamp = z.string().meta({ format: 'date-time', example: '2026-11-21T10:00:00.000Z' });

/** `{id}` in a path. Lookups of malformed ids simply find nothing (404). */
export const idParams = z.object({ id: z.string().min(1).max(64) });

export const deletedSchema = (object: string) =>
  z.object({ object: z.literal(object), id: z.string(), deleted: z.literal(true) });

export const listSchema = <T extends z.ZodType>(item: T) =>
  z.object({ object: z.literal('list'), data: z.array(item), hasMore: z.boolean() });

/** Trimmed, 1–100 characters: names of projects and keys. */
export const nameField = z.string().trim().min(1).max(100);

/** Case-folded and trimmed, so one person cannot sign up twice. */
export const emailField = z.string().trim().max(254).pipe(z.email()).transform((e) => e.toLowerCase());

export const passwordField = z.string().min(8).max(256);
