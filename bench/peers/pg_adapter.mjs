// A PostgreSQL adapter for node-oidc-provider, for bench/refresh_peer.ts --durable-peer: the peer doing what
// Portico does on a refresh — keeping its tokens in PostgreSQL, every write committed before the answer
// (node-postgres, autocommit, the server's synchronous commit). One table for every model, keyed by type and id,
// with the grant, uid and user code as columns: the design of the Knex adapter among node-oidc-provider's
// contributed ones (its `oidc_payloads` table), with Logto's indexes on those three. The in-memory adapter's
// behaviour (lib/adapters/memory_adapter.js) otherwise: `find` of an expired entry finds nothing, `consume`
// marks, `revokeByGrantId` removes the grant's tokens.
import pg from "pg";

const TABLE = `create table if not exists oidc_payloads (
  type text not null,
  id text not null,
  payload jsonb not null,
  grant_id text,
  user_code text,
  uid text,
  expires_at timestamptz,
  consumed_at timestamptz,
  primary key (type, id)
);
create index if not exists oidc_payloads_grant on oidc_payloads (grant_id);
create index if not exists oidc_payloads_uid on oidc_payloads (uid);
create index if not exists oidc_payloads_user_code on oidc_payloads (user_code);
truncate oidc_payloads`;

/** The adapter class for `new Provider(…, { adapter })`, on a pool of `max` connections (Portico's is 10). */
export async function pgAdapter(connectionString, max = 10) {
  const pool = new pg.Pool({ connectionString, max });
  await pool.query(TABLE);
  const found = (rows) => {
    const row = rows[0];
    if (!row) return undefined;
    return row.consumed ? { ...row.payload, consumed: row.consumed } : row.payload;
  };
  const select = `select payload, extract(epoch from consumed_at)::int as consumed from oidc_payloads
                   where type = $1 and (expires_at is null or expires_at > now())`;
  class PgAdapter {
    constructor(model) {
      this.type = model;
    }
    async upsert(id, payload, expiresIn) {
      await pool.query(
        `insert into oidc_payloads (type, id, payload, grant_id, user_code, uid, expires_at)
         values ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7))
         on conflict (type, id) do update set payload = excluded.payload, grant_id = excluded.grant_id,
           user_code = excluded.user_code, uid = excluded.uid, expires_at = excluded.expires_at`,
        [this.type, id, payload, payload.grantId ?? null, payload.userCode ?? null, payload.uid ?? null, expiresIn ?? null],
      );
    }
    async find(id) {
      return found((await pool.query(`${select} and id = $2`, [this.type, id])).rows);
    }
    async findByUid(uid) {
      return found((await pool.query(`${select} and uid = $2`, [this.type, uid])).rows);
    }
    async findByUserCode(userCode) {
      return found((await pool.query(`${select} and user_code = $2`, [this.type, userCode])).rows);
    }
    async consume(id) {
      await pool.query("update oidc_payloads set consumed_at = now() where type = $1 and id = $2", [this.type, id]);
    }
    async destroy(id) {
      await pool.query("delete from oidc_payloads where type = $1 and id = $2", [this.type, id]);
    }
    async revokeByGrantId(grantId) {
      await pool.query("delete from oidc_payloads where grant_id = $1", [grantId]);
    }
  }
  return { PgAdapter, end: () => pool.end() };
}
