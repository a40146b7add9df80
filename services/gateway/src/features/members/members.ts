import type { ListQuery } from '../../http/pagination';
import { conflict, MailroomError, notFound } from '@mailroom/core';
import { Prisma, type Database, type Role } from '@mailroom/db';

export interface MemberView {
  userId: string;
  email: string;
  role: Role;
  createdAt: Date;
}

const memberSelect = { userId: true, role: true, createdAt: true, user: { select: { email: true } } } as const;
type MemberRow = Prisma.MemberGetPayload<{ select: typeof memberSelect }>;
const toView = (row: MemberRow): MemberView => ({ userId: row.userId, email: row.user.email, role: row.role, createdAt: row.createdAt });

/** One page of the project's members, by user id (a member's `id`), newest first as every list. */
export async function listMembers(db: Database, projectId: string, query: ListQuery): Promise<MemberView[]> {
  const rows = await db.member.findMany({
    where: { projectId, ...(query.after ? { userId: { lt: query.after } } : {}) },
    select: memberSelect,
    orderBy: { userId: 'desc' },
    take: query.limit + 1,
  });
  return rows.map(toView);
}

/** Adds an existing user to the project. 404 for an unknown email, 409 if already a member. */
export async function addMember(db: Database, projectId: string, email: string, role: Role): Promise<MemberView> {
  const user = await db.user.findUnique({ where: { email }, select: { id: true } });
  if (!user) throw new MailroomError('not_found', 'No user has that email; they must sign up first.');
  try {
    return toView(await db.member.create({ data: { projectId, userId: user.id, role }, select: memberSelect }));
  } catch (err) {
    if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') {
      throw conflict('That user is already a member of this project.');
    }
    throw err;
  }
}

/**
 * Changes a member's role. The last owner cannot be demoted (409), for the same reason it cannot
 * be removed; serialised per project like `removeMember`.
 */
export async function changeMemberRole(db: Database, projectId: string, userId: string, role: Role): Promise<MemberView> {
  return db.$transaction(async (tx) => {
    await lockProject(tx, projectId);
    const member = await tx.member.findUnique({ where: { projectId_userId: { projectId, userId } } });
    if (!member) throw notFound('member');
    if (member.role === 'owner' && role !== 'owner') await keepAnOwner(tx, projectId, 'demoted');
    return toView(await tx.member.update({ where: { projectId_userId: { projectId, userId } }, data: { role }, select: memberSelect }));
  });
}

/**
 * Removes a member. The last owner stays: a project without an owner could never be managed.
 * Serialised per project so two owners removing each other cannot both succeed.
 */
export async function removeMember(db: Database, projectId: string, userId: string): Promise<void> {
  await db.$transaction(async (tx) => {
    await lockProject(tx, projectId);
    const member = await tx.member.findUnique({ where: { projectId_userId: { projectId, userId } } });
    if (!member) throw notFound('member');
    if (member.role === 'owner') await keepAnOwner(tx, projectId, 'removed');
    await tx.member.delete({ where: { projectId_userId: { projectId, userId } } });
  });
}

type Transaction = Prisma.TransactionClient;

async function lockProject(tx: Transaction, projectId: string): Promise<void> {
  await tx.$queryRaw`SELECT id FROM projects WHERE id = ${projectId} FOR UPDATE`;
}

/** 409 when the owner about to lose the role is the project's only one. */
async function keepAnOwner(tx: Transaction, projectId: string, change: 'removed' | 'demoted'): Promise<void> {
  const owners = await tx.member.count({ where: { projectId, role: 'owner' } });
  if (owners <= 1) throw conflict(`The last owner of a project cannot be ${change}.`);
}
