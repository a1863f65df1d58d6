import Stowage

/// The SQL of the store's tables, in the schema the options name.
///
/// Values are always bound parameters. The schema's name is the one thing
/// written into the text, since PostgreSQL can not bind an identifier: it is
/// checked to be a plain lowercase identifier first, and quoted.
struct PostgresSchema: Sendable {
    /// The version of the tables this release creates and understands
    /// (component `entries` in `schema_versions`).
    static let currentVersion: Int32 = 1
    /// The version of the notification triggers (component `notifications`),
    /// recorded apart from the tables', so that a release that knows only
    /// the tables still opens them once a newer one has added the triggers.
    static let notificationsVersion: Int32 = 2

    let name: String
    let quoted: String

    init(name: String) throws(StorageError) {
        let isPlain =
            !name.isEmpty && name.utf8.count <= 63
            && name.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
            && !(name.utf8.first.map { $0 >= 0x30 && $0 <= 0x39 } ?? true)
        guard isPlain else {
            throw StorageError(
                code: .storeFailure,
                reason:
                    "the schema name \"\(name)\" is not a plain identifier: use 1 to 63 lowercase ASCII letters, digits and underscores, not starting with a digit."
            )
        }
        self.name = name
        quoted = "\"\(name)\""
    }

    /// `statements` (DDL, without values) as one statement, a PL/pgSQL
    /// block, sent in one round trip: setting up the tables takes some 30
    /// statements, and a setup that took as many round trips could be cut
    /// off again and again where connections are being killed, never
    /// finishing (a fleet test's eight processes waited 30 s in vain so).
    static func oneStatement(_ statements: [String]) -> String {
        "DO $stowage_setup$ BEGIN\n" + statements.map { $0 + ";\n" }.joined() + "END $stowage_setup$"
    }

    /// The table every store keeps its entries in, one row per namespace and key.
    var entries: String { "\(quoted).entries" }

    /// Taken, for the transaction, by a process creating or upgrading the tables, so two never race.
    let setupLockID: Int64 = 0x5354_4F57_4147_45  // "STOWAGE"

    var createSchema: String { "CREATE SCHEMA IF NOT EXISTS \(quoted)" }

    var createVersions: String {
        "CREATE TABLE IF NOT EXISTS \(quoted).schema_versions (component text PRIMARY KEY, version integer NOT NULL)"
    }

    /// Every component's version: `entries`, `notifications`, `history`, `writes`.
    var selectVersions: String { "SELECT component, version FROM \(quoted).schema_versions" }

    /// Version 1: every change gets a revision from one sequence, by trigger,
    /// so an operator's `UPDATE` in `psql` is stamped as the store's own
    /// writes are; a removal keeps its row (`removed`, with no value), so a
    /// later resynchronisation tells a removed key from one never seen.
    var createVersion1: [String] {
        [
            "CREATE SEQUENCE IF NOT EXISTS \(quoted).revisions",
            """
            CREATE TABLE IF NOT EXISTS \(entries) (
                namespace text NOT NULL,
                key text NOT NULL,
                value text,
                removed boolean NOT NULL DEFAULT false,
                revision bigint NOT NULL,
                updated_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (namespace, key),
                CHECK (removed = (value IS NULL))
            )
            """,
            "CREATE INDEX IF NOT EXISTS entries_by_revision ON \(entries) (namespace, revision)",
            """
            CREATE OR REPLACE FUNCTION \(quoted).stamp_revision() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                NEW.revision := nextval('\(quoted).revisions');
                NEW.updated_at := now();
                RETURN NEW;
            END
            $$
            """,
            "DROP TRIGGER IF EXISTS stamp_revision ON \(entries)",
            "CREATE TRIGGER stamp_revision BEFORE INSERT OR UPDATE ON \(entries) FOR EACH ROW EXECUTE FUNCTION \(quoted).stamp_revision()",
            "INSERT INTO \(quoted).schema_versions (component, version) VALUES ('entries', 1)",
        ]
    }

    /// The channel the tables' trigger notifies of every change, and stores
    /// listen on: the schema's name, so stores of different schemas in one
    /// database hear only their own.
    var channel: String { name }

    /// Notifications, version 1: a trigger notifies every change, whoever
    /// makes it (a store, an operator's `UPDATE` or `DELETE`), on
    /// ``channel`` at commit. The payload only identifies the change,
    /// `{"namespace", "key", "revision", "deleted"}`, since a payload is
    /// limited to 8,000 bytes; where even that is too long, it names the
    /// namespace alone, or nothing, and listeners read the whole namespace,
    /// or every namespace, again. An `UPDATE` that moves a row to another
    /// key or namespace also notifies the old one as deleted. A `TRUNCATE`
    /// notifies nothing in particular, so every listener reads its namespace again.
    ///
    /// Version 2 adds the value, as `"value"` (the row's JSON text), to the
    /// notice of a write when the writing session's
    /// `stowage.notices_carry_values` is `on` (`ALTER DATABASE … SET
    /// stowage.notices_carry_values = on`, an operator's opt-in for a
    /// database where every role that may `LISTEN` may read the table) and
    /// the notice stays within its limit; listeners then take the value from
    /// the notice, with no read. Otherwise the notice is version 1's.
    var createNotifications: [String] {
        [
            """
            CREATE OR REPLACE FUNCTION \(quoted).notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                payload text;
            BEGIN
                IF TG_OP = 'TRUNCATE' THEN
                    PERFORM pg_notify('\(channel)', '{}');
                    RETURN NULL;
                END IF;
                IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND (OLD.namespace, OLD.key) IS DISTINCT FROM (NEW.namespace, NEW.key)) THEN
                    PERFORM pg_notify('\(channel)', \(quoted).change_notice(OLD.namespace, OLD.key, OLD.revision, true, NULL));
                END IF;
                IF TG_OP <> 'DELETE' THEN
                    PERFORM pg_notify('\(channel)', \(quoted).change_notice(NEW.namespace, NEW.key, NEW.revision, false, NEW.value));
                END IF;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE OR REPLACE FUNCTION \(quoted).change_notice(namespace text, key text, revision bigint, deleted boolean, value text) RETURNS text LANGUAGE plpgsql AS $$
            DECLARE
                payload text := json_build_object('namespace', namespace, 'key', key, 'revision', revision, 'deleted', deleted)::text;
                with_value text;
            BEGIN
                IF value IS NOT NULL AND current_setting('stowage.notices_carry_values', true) = 'on' THEN
                    with_value := json_build_object('namespace', namespace, 'key', key, 'revision', revision, 'deleted', deleted, 'value', value)::text;
                    IF octet_length(with_value) <= 7900 THEN RETURN with_value; END IF;
                END IF;
                IF octet_length(payload) > 7900 THEN
                    payload := json_build_object('namespace', namespace)::text;
                    IF octet_length(payload) > 7900 THEN payload := '{}'; END IF;
                END IF;
                RETURN payload;
            END
            $$
            """,
            // Version 1's, which version 2's change_notice replaces.
            "DROP FUNCTION IF EXISTS \(quoted).change_payload(text, text, bigint, boolean)",
            "DROP TRIGGER IF EXISTS notify_change ON \(entries)",
            "CREATE TRIGGER notify_change AFTER INSERT OR UPDATE OR DELETE ON \(entries) FOR EACH ROW EXECUTE FUNCTION \(quoted).notify_change()",
            "DROP TRIGGER IF EXISTS notify_truncate ON \(entries)",
            "CREATE TRIGGER notify_truncate AFTER TRUNCATE ON \(entries) FOR EACH STATEMENT EXECUTE FUNCTION \(quoted).notify_change()",
            "DELETE FROM \(quoted).schema_versions WHERE component = 'notifications'",
            "INSERT INTO \(quoted).schema_versions (component, version) VALUES ('notifications', \(Self.notificationsVersion))",
        ]
    }

    /// Every row of a namespace, removals included.
    var selectNamespace: String { "SELECT key, value, revision FROM \(entries) WHERE namespace = $1" }

    /// The rows of some keys of a namespace.
    var selectKeys: String { "SELECT key, value, revision FROM \(entries) WHERE namespace = $1 AND key = ANY($2::text[])" }

    /// Writes a batch in one statement: `$2` keys, `$3` values as JSON text
    /// (ignored where `$4` says removed), `$4` removals.
    var upsertBatch: String {
        """
        INSERT INTO \(entries) AS e (namespace, key, value, removed)
        SELECT $1, k, CASE WHEN r THEN NULL ELSE v END, r FROM unnest($2::text[], $3::text[], $4::boolean[]) AS t(k, v, r), \(authorSetting(5))
        ON CONFLICT (namespace, key) DO UPDATE SET value = EXCLUDED.value, removed = EXCLUDED.removed
        RETURNING key, revision
        """
    }

    /// The compare-and-swap of a key with no row yet: only if there still is none.
    var insertIfAbsent: String {
        """
        INSERT INTO \(entries) (namespace, key, value, removed) SELECT $1, $2, $3::text, $3::text IS NULL FROM \(authorSetting(4))
        ON CONFLICT (namespace, key) DO NOTHING RETURNING revision
        """
    }

    /// Writes one key (`$3` its value as JSON text, `NULL` to remove it):
    /// the batch's statement without the arrays, which a single write,
    /// the common case, need not pay to build and `unnest`.
    var upsertOne: String {
        """
        INSERT INTO \(entries) AS e (namespace, key, value, removed) SELECT $1, $2, $3::text, $3::text IS NULL FROM \(authorSetting(4))
        ON CONFLICT (namespace, key) DO UPDATE SET value = EXCLUDED.value, removed = EXCLUDED.removed
        RETURNING key, revision
        """
    }

    /// The compare-and-swap of a key with a row: only if its revision is still `$4`.
    var updateIfRevision: String {
        """
        UPDATE \(entries) SET value = $3::text, removed = ($3::text IS NULL) FROM \(authorSetting(5))
        AND namespace = $1 AND key = $2 AND revision = $4 RETURNING revision
        """
    }

    /// A one-row table that sets, for the statement's transaction, the
    /// author the history records (`$n`, text; empty: none): joined to the
    /// rows written, and tested, so it is evaluated before the first row's trigger runs.
    private func authorSetting(_ parameter: Int) -> String {
        "(SELECT set_config('stowage.author', $\(parameter)::text, true) AS author) AS author_setting WHERE author_setting.author IS NOT NULL"
    }
}
