import session from 'express-session';
import { createHash } from 'node:crypto';
import type { Clock } from '@gensvc/kernel';
import type { ReadStore } from '@gensvc/event-sourcing';

type SessionDoc = { _id: string; data: string; expires_at: string };

const COLLECTION = 'identity_login_sessions';
const DEFAULT_TTL_MS = 3600_000;

/**
 * express-session store for the consent page's login sessions, kept in the read store
 * (in memory by default, MongoDB when MONGO_URL is set, so several API processes share
 * them). Sessions are short-lived and not business facts, so they are not event-sourced;
 * a restart of the embedded store logs everyone out of the consent page, nothing more.
 * Documents are keyed by the SHA-256 of the session id (the cookie value is never stored).
 */
export class ReadStoreSessionStore extends session.Store {
  private writes = 0;

  constructor(
    private readonly readStore: ReadStore,
    private readonly clock: Clock,
  ) {
    super();
  }

  private key(sid: string): string {
    return createHash('sha256').update(sid).digest('hex');
  }

  private collection() {
    return this.readStore.collection<SessionDoc>(COLLECTION);
  }

  private expiry(data: session.SessionData): string {
    const expires = data.cookie?.expires ? new Date(data.cookie.expires).getTime() : this.clock.now().getTime() + DEFAULT_TTL_MS;
    return new Date(expires).toISOString();
  }

  override get(sid: string, callback: (err: unknown, session?: session.SessionData | null) => void): void {
    this.collection()
      .findOne({ _id: this.key(sid) })
      .then((doc) => {
        if (!doc || doc.expires_at <= this.clock.now().toISOString()) return callback(null, null);
        callback(null, JSON.parse(doc.data) as session.SessionData);
      }, callback);
  }

  override set(sid: string, data: session.SessionData, callback?: (err?: unknown) => void): void {
    const doc: SessionDoc = { _id: this.key(sid), data: JSON.stringify(data), expires_at: this.expiry(data) };
    this.collection()
      .replaceOne({ _id: doc._id }, doc, { upsert: true })
      .then(() => this.sweep())
      .then(() => callback?.(), (err) => callback?.(err));
  }

  override touch(sid: string, data: session.SessionData, callback?: () => void): void {
    this.collection()
      .updateOne({ _id: this.key(sid) }, { $set: { expires_at: this.expiry(data) } })
      .then(() => callback?.(), () => callback?.());
  }

  override destroy(sid: string, callback?: (err?: unknown) => void): void {
    this.collection()
      .deleteOne({ _id: this.key(sid) })
      .then(() => callback?.(), (err) => callback?.(err));
  }

  /** Drops expired sessions now and then. */
  private async sweep(): Promise<void> {
    if (++this.writes % 100 !== 0) return;
    await this.collection().deleteMany({ expires_at: { $lte: this.clock.now().toISOString() } });
  }
}
