/// The history of changes (component `history`): a trigger records every
/// change of a row in the transaction that makes it, so no change commits
/// without its record, whoever makes it (a store, an operator's `psql`).
extension PostgresSchema {
    /// The version of the history's tables and trigger, recorded apart from the entries'.
    static let historyVersion: Int32 = 1

    /// One row per change, or per refused request (`kind`).
    var history: String { "\(quoted).history" }

    /// The patterns of secret keys (SQL `LIKE` patterns) per namespace: the
    /// trigger records that a secret key changed, never its values.
    var secretKeys: String { "\(quoted).secret_keys" }

    /// Version 1. Who made a change is what the writing session set in
    /// `stowage.author` for its transaction (the store sets it with each
    /// statement), and always its role and `application_name`.
    ///
    /// The functions that write the history run with the rights of the
    /// tables' owner (`SECURITY DEFINER`, with a fixed `search_path`), so a
    /// role that may only write the entries, as a DBA may grant, has its
    /// changes recorded all the same, and can neither skip nor edit the
    /// record. The role recorded is the session's (`session_user`), not the owner's.
    var createHistory: [String] {
        [
            """
            CREATE TABLE IF NOT EXISTS \(history) (
                id bigserial PRIMARY KEY,
                kind text NOT NULL DEFAULT 'change' CHECK (kind IN ('change', 'refusal')),
                namespace text NOT NULL,
                key text NOT NULL,
                revision bigint,
                old_value text,
                new_value text,
                had_value boolean NOT NULL,
                has_value boolean NOT NULL,
                redacted boolean NOT NULL DEFAULT false,
                changed_at timestamptz NOT NULL DEFAULT clock_timestamp(),
                author text,
                database_role text NOT NULL DEFAULT current_user,
                application text NOT NULL DEFAULT current_setting('application_name'),
                reason text
            )
            """,
            "CREATE INDEX IF NOT EXISTS history_by_key ON \(history) (namespace, key, id)",
            "CREATE INDEX IF NOT EXISTS history_by_time ON \(history) (namespace, changed_at)",
            "CREATE TABLE IF NOT EXISTS \(secretKeys) (namespace text NOT NULL, pattern text NOT NULL, PRIMARY KEY (namespace, pattern))",
            """
            CREATE OR REPLACE FUNCTION \(quoted).is_secret(namespace text, key text) RETURNS boolean LANGUAGE sql STABLE AS $$
                SELECT EXISTS (SELECT 1 FROM \(secretKeys) s WHERE s.namespace = $1 AND $2 LIKE s.pattern)
            $$
            """,
            """
            CREATE OR REPLACE FUNCTION \(quoted).record_row(namespace text, key text, revision bigint, old_value text, new_value text, had_value boolean, has_value boolean)
            RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
            DECLARE
                secret boolean := \(quoted).is_secret(namespace, key);
            BEGIN
                INSERT INTO \(history) (namespace, key, revision, old_value, new_value, had_value, has_value, redacted, author, database_role, application)
                VALUES (namespace, key, revision, CASE WHEN secret THEN NULL ELSE old_value END, CASE WHEN secret THEN NULL ELSE new_value END,
                        had_value, has_value, secret, nullif(current_setting('stowage.author', true), ''), session_user,
                        coalesce(current_setting('application_name', true), ''));
            END
            $$
            """,
            """
            CREATE OR REPLACE FUNCTION \(quoted).record_refusal(namespace text, key text, author text, reason text)
            RETURNS void LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
                INSERT INTO \(history) (kind, namespace, key, had_value, has_value, redacted, author, reason, database_role, application)
                VALUES ('refusal', $1, $2, false, false, \(quoted).is_secret($1, $2), $3, $4, session_user, coalesce(current_setting('application_name', true), ''))
            $$
            """,
            """
            CREATE OR REPLACE FUNCTION \(quoted).add_secret_patterns(namespace text, patterns text[])
            RETURNS void LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
                INSERT INTO \(secretKeys) (namespace, pattern) SELECT $1, unnest($2) ON CONFLICT DO NOTHING
            $$
            """,
            """
            CREATE OR REPLACE FUNCTION \(quoted).record_change() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
            DECLARE
                moved boolean := TG_OP = 'UPDATE' AND (OLD.namespace, OLD.key) IS DISTINCT FROM (NEW.namespace, NEW.key);
            BEGIN
                IF TG_OP = 'TRUNCATE' THEN
                    PERFORM \(quoted).record_row(e.namespace, e.key, e.revision, e.value, NULL, NOT e.removed, false) FROM \(entries) e;
                    RETURN NULL;
                END IF;
                IF TG_OP = 'DELETE' OR moved THEN
                    PERFORM \(quoted).record_row(OLD.namespace, OLD.key, OLD.revision, OLD.value, NULL, NOT OLD.removed, false);
                END IF;
                IF TG_OP = 'INSERT' OR moved THEN
                    PERFORM \(quoted).record_row(NEW.namespace, NEW.key, NEW.revision, NULL, NEW.value, false, NOT NEW.removed);
                ELSIF TG_OP = 'UPDATE' THEN
                    PERFORM \(quoted).record_row(NEW.namespace, NEW.key, NEW.revision, OLD.value, NEW.value, NOT OLD.removed, NOT NEW.removed);
                END IF;
                RETURN NULL;
            END
            $$
            """,
            "DROP TRIGGER IF EXISTS record_change ON \(entries)",
            "CREATE TRIGGER record_change AFTER INSERT OR UPDATE OR DELETE ON \(entries) FOR EACH ROW EXECUTE FUNCTION \(quoted).record_change()",
            "DROP TRIGGER IF EXISTS record_truncate ON \(entries)",
            "CREATE TRIGGER record_truncate BEFORE TRUNCATE ON \(entries) FOR EACH STATEMENT EXECUTE FUNCTION \(quoted).record_change()",
            "DELETE FROM \(quoted).schema_versions WHERE component = 'history'",
            "INSERT INTO \(quoted).schema_versions (component, version) VALUES ('history', \(Self.historyVersion))",
        ]
    }

    /// Adds the store's secret patterns (`$2`) for its namespace; patterns
    /// are only ever added, so a server of an older configuration never
    /// makes a key public that a newer one made secret.
    var insertSecretPatterns: String {
        "SELECT \(quoted).add_secret_patterns($1, $2::text[])"
    }

    /// Entries of the namespace, newest first: `$2` a key or `NULL`, `$3` a time or `NULL`, `$4` how many.
    var selectHistory: String {
        """
        SELECT id, kind, key, old_value, new_value, had_value, has_value, redacted, changed_at, author, database_role, application, reason
        FROM \(history) WHERE namespace = $1 AND ($2::text IS NULL OR key = $2::text) AND ($3::timestamptz IS NULL OR changed_at >= $3::timestamptz)
        ORDER BY id DESC LIMIT $4
        """
    }

    var insertRefusal: String {
        "SELECT \(quoted).record_refusal($1, $2, $3, $4)"
    }

    /// Deletes up to 1,000 entries of the namespace older than `$2` seconds,
    /// skipping rows another pruner holds: pruning touches only old entries,
    /// which no writer locks, so it never waits for a writer nor makes one wait.
    var pruneOlderThan: String {
        """
        DELETE FROM \(history) WHERE id IN (
            SELECT id FROM \(history) WHERE namespace = $1 AND changed_at < now() - make_interval(secs => $2::double precision)
            ORDER BY id LIMIT 1000 FOR UPDATE SKIP LOCKED)
        """
    }

    /// Deletes up to 1,000 entries of the namespace beyond the newest `$2` of each key.
    var pruneBeyondLatest: String {
        """
        DELETE FROM \(history) WHERE id IN (
            SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY key ORDER BY id DESC) AS position FROM \(history) WHERE namespace = $1) ranked
            WHERE position > $2 LIMIT 1000)
        """
    }
}
