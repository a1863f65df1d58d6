/// Writes that answer only once committed (component `writes`): procedures
/// that write, `COMMIT`, and only then return what they wrote.
///
/// A statement outside a transaction block is committed at the protocol's
/// `Sync`, after its rows have been sent, so its rows alone do not say it
/// was committed, and a second question on the connection (`SELECT 1`) had
/// to confirm it: a second round trip for every write. A procedure called
/// outside a transaction block may end its transaction itself; its result
/// row is sent after that `COMMIT`, so one round trip writes and confirms.
/// The procedures run with the caller's rights (transaction control is not
/// allowed in `SECURITY DEFINER` ones), so a role writes with them exactly
/// what it may write with the statements.
extension PostgresSchema {
    /// The version of the write procedures, recorded apart from the entries'.
    static let writesVersion: Int32 = 3

    /// Version 1: `write_committed`, the batch upsert of ``upsertBatch``,
    /// and `replace_committed`, the one-key compare-and-swap of
    /// ``updateIfRevision`` and ``insertIfAbsent`` (expected revision 0:
    /// no row yet). Each sets the history's author for its transaction first.
    ///
    /// Version 2 adds `swap_committed`, the same compare-and-swap, which
    /// answers a miss with the row as it is (its value and revision; none
    /// when there is no row), so the caller's next try needs no read of its
    /// own: under contention that read was a second statement per miss.
    /// `replace_committed` stays for servers of the earlier release, which
    /// call it during a rolling upgrade.
    ///
    /// Version 3 adds `write_one_committed`, the upsert of one key, for the
    /// commonest batch: a lone write. Without arrays to build, parse and
    /// `unnest`, and without gathering its answer into arrays, it made 6% more
    /// commits a second than `write_committed` with one key (pgbench, one
    /// client, the extended protocol, on the benchmarks' server).
    var createWrites: [String] {
        [
            """
            CREATE OR REPLACE PROCEDURE \(quoted).write_committed(
                p_namespace text, p_keys text[], p_values text[], p_removals boolean[], p_author text,
                INOUT written_keys text[] DEFAULT NULL, INOUT revisions bigint[] DEFAULT NULL)
            LANGUAGE plpgsql AS $$
            #variable_conflict use_column
            BEGIN
                PERFORM set_config('stowage.author', p_author, true);
                WITH written AS (
                    INSERT INTO \(entries) AS e (namespace, key, value, removed)
                    SELECT p_namespace, k, CASE WHEN r THEN NULL ELSE v END, r FROM unnest(p_keys, p_values, p_removals) AS t(k, v, r)
                    ON CONFLICT (namespace, key) DO UPDATE SET value = EXCLUDED.value, removed = EXCLUDED.removed
                    RETURNING e.key, e.revision)
                SELECT array_agg(written.key), array_agg(written.revision) INTO written_keys, revisions FROM written;
                COMMIT;
            END
            $$
            """,
            """
            CREATE OR REPLACE PROCEDURE \(quoted).write_one_committed(
                p_namespace text, p_key text, p_value text, p_author text, INOUT written_revision bigint DEFAULT NULL)
            LANGUAGE plpgsql AS $$
            #variable_conflict use_column
            BEGIN
                PERFORM set_config('stowage.author', p_author, true);
                INSERT INTO \(entries) AS e (namespace, key, value, removed) VALUES (p_namespace, p_key, p_value, p_value IS NULL)
                ON CONFLICT (namespace, key) DO UPDATE SET value = EXCLUDED.value, removed = EXCLUDED.removed
                RETURNING e.revision INTO written_revision;
                COMMIT;
            END
            $$
            """,
            """
            CREATE OR REPLACE PROCEDURE \(quoted).replace_committed(
                p_namespace text, p_key text, p_value text, p_expected bigint, p_author text, INOUT written_revision bigint DEFAULT NULL)
            LANGUAGE plpgsql AS $$
            #variable_conflict use_column
            BEGIN
                \(compareAndSwapBody)
                COMMIT;
            END
            $$
            """,
            """
            CREATE OR REPLACE PROCEDURE \(quoted).swap_committed(
                p_namespace text, p_key text, p_value text, p_expected bigint, p_author text, INOUT written_revision bigint DEFAULT NULL,
                INOUT current_value text DEFAULT NULL, INOUT current_revision bigint DEFAULT NULL)
            LANGUAGE plpgsql AS $$
            #variable_conflict use_column
            BEGIN
                \(compareAndSwapBody)
                IF written_revision IS NULL THEN
                    SELECT value, revision INTO current_value, current_revision FROM \(entries) WHERE namespace = p_namespace AND key = p_key;
                END IF;
                COMMIT;
            END
            $$
            """,
            "DELETE FROM \(quoted).schema_versions WHERE component = 'writes'",
            "INSERT INTO \(quoted).schema_versions (component, version) VALUES ('writes', \(Self.writesVersion))",
        ]
    }

    /// The compare-and-swap both procedures run (`written_revision` stays
    /// `NULL` when the row had moved on), indented for their bodies.
    private var compareAndSwapBody: String {
        """
        PERFORM set_config('stowage.author', p_author, true);
                IF p_expected = 0 THEN
                    INSERT INTO \(entries) (namespace, key, value, removed) VALUES (p_namespace, p_key, p_value, p_value IS NULL)
                    ON CONFLICT (namespace, key) DO NOTHING RETURNING revision INTO written_revision;
                ELSE
                    UPDATE \(entries) SET value = p_value, removed = (p_value IS NULL)
                    WHERE namespace = p_namespace AND key = p_key AND revision = p_expected RETURNING revision INTO written_revision;
                END IF;
        """
    }

    /// How many of the two procedures every batch and compare-and-swap
    /// calls, and how many of the one-key write's (0 or 1), are in the
    /// schema named by parameter `$n` and may be called by this role, which
    /// a DBA may have revoked (`REVOKE EXECUTE … FROM PUBLIC`): two counts,
    /// for a select list. Counted apart, so that tables at an earlier version
    /// of `writes`, which this role may not upgrade, keep the procedures they have.
    func countCallableWriteProcedures(schemaParameter n: Int) -> String {
        """
        SELECT count(*) FILTER (WHERE p.proname IN ('write_committed', 'swap_committed')), count(*) FILTER (WHERE p.proname = 'write_one_committed')
        FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = $\(n) AND p.prokind = 'p' AND p.proname IN ('write_committed', 'swap_committed', 'write_one_committed')
        AND has_function_privilege(p.oid, 'EXECUTE')
        """
    }

    /// `$1` namespace, `$2` keys, `$3` values as JSON text (ignored where
    /// `$4` says removed), `$4` removals, `$5` author (empty: none); one row
    /// of the keys written and their revisions, sent once committed.
    var callWriteCommitted: String { "CALL \(quoted).write_committed($1, $2::text[], $3::text[], $4::boolean[], $5::text, NULL, NULL)" }

    /// `$1` namespace, `$2` key, `$3` value as JSON text (`NULL`: remove),
    /// `$4` author (empty: none); one row of the key's new revision, sent once committed.
    var callWriteOneCommitted: String { "CALL \(quoted).write_one_committed($1, $2, $3::text, $4::text, NULL)" }

    /// `$1` namespace, `$2` key, `$3` value as JSON text (`NULL`: remove),
    /// `$4` the revision expected (0: no row), `$5` author; one row, sent
    /// once committed: the new revision, or `NULL` when the row had moved
    /// on, and then the row's value and revision (both `NULL`: no row).
    var callSwapCommitted: String { "CALL \(quoted).swap_committed($1, $2, $3::text, $4, $5::text, NULL, NULL, NULL)" }
}
