import type { Request, Response } from "express";
import { db } from "./db";

/** Roles a user may hold. */
export enum Role {
  Admin = "admin",
  Member = "member",
}

export interface User {
  id: string;
  email: string;
  roles: Role[];
}

export type UserPatch = Partial<Omit<User, "id">>;

// Repository abstracts persistence so handlers can be tested.
export abstract class Repository<T extends { id: string }> {
  abstract find(id: string): Promise<T | undefined>;

  async mustFind(id: string): Promise<T> {
    const found = await this.find(id);
    if (!found) {
      throw new Error(`not found: ${id}`);
    }
    return found;
  }
}

export class UserRepository extends Repository<User> {
  constructor(private readonly table = "users") {
    super();
  }

  async find(id: string): Promise<User | undefined> {
    return db.query<User>(`select * from ${this.table} where id = $1`, [id]);
  }

  async update(id: string, patch: UserPatch): Promise<User> {
    const user = await this.mustFind(id);
    const next = { ...user, ...patch };
    await db.exec(`update ${this.table} set email = $2 where id = $1`, [id, next.email]);
    return next;
  }
}

export namespace Validation {
  export function isEmail(s: string): boolean {
    return /^[^@\s]+@[^@\s]+$/.test(s);
  }
}

/**
 * getUser handles GET /users/:id.
 */
export async function getUser(req: Request, res: Response): Promise<void> {
  const repo = new UserRepository();
  const user = await repo.find(req.params.id);
  if (!user) {
    res.status(404).end();
    return;
  }
  res.json(user);
}

export const isAdmin = (u: User): boolean => u.roles.includes(Role.Admin);

declare global {
  interface Window {
    currentUser?: User;
  }
}
