import { conflict, forbidden, hashPassword, MailroomError, newId, verifyPassword } from '@mailroom/core';
import { Prisma, type Database, type Project, type User } from '@mailroom/db';

// Serialises account creation so "open while no user exists" admits exactly one first user.
const ACCOUNT_LOCK = 7_241_001;
// Compared against when the email is unknown, so a miss costs what a hit costs.
const DUMMY_HASH = hashPassword('mailroom-timing-equaliser');

export interface NewAccount {
  email: string;
  password: string;
  projectName?: string | undefined;
}

/**
 * Creates a user who owns a first project. `allowSignup` is ALLOW_SIGNUP: unset means open
 * only while no user exists. `firstUserOnly` (the ADMIN_* bootstrap) creates nothing once any user exists.
 */
export async function createAccount(
  db: Database,
  account: NewAccount,
  policy: { allowSignup: boolean | undefined; firstUserOnly?: boolean },
): Promise<{ user: User; project: Project } | null> {
  const passwordHash = await hashPassword(account.password);
  try {
    return await db.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${ACCOUNT_LOCK})`;
      const anyUser = (await tx.user.findFirst({ select: { id: true } })) !== null;
      if (policy.firstUserOnly && anyUser) return null;
      if (!policy.firstUserOnly && (policy.allowSignup ?? !anyUser) === false) {
        throw forbidden('Signup is closed on this installation; ask an owner to add you to a project.');
      }
      if (await tx.user.findUnique({ where: { email: account.email }, select: { id: true } })) {
        throw conflict('An account with that email already exists.');
      }
      const user = await tx.user.create({ data: { id: newId('user'), email: account.email, passwordHash } });
      const project = await tx.project.create({
        data: {
          id: newId('project'),
          name: account.projectName ?? 'My project',
          members: { create: { userId: user.id, role: 'owner' } },
        },
      });
      return { user, project };
    });
  } catch (err) {
    if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') {
      throw conflict('An account with that email already exists.');
    }
    throw err;
  }
}

/** The user with these credentials, or 401 `invalid_credentials` (same answer for either mistake). */
export async function checkCredentials(db: Database, email: string, password: string): Promise<User> {
  const user = await db.user.findUnique({ where: { email } });
  const ok = await verifyPassword(password, user?.passwordHash ?? (await DUMMY_HASH));
  if (!user || !ok) throw new MailroomError('invalid_credentials', 'The email or password is wrong.');
  return user;
}
