import Foundation
import StowagePostgres
import Testing

/// Which statement a write sends: a lone write calls the one-key procedure
/// (version 3 of `writes`), and tables whose procedures are older keep
/// those they have.
@Suite(.runsStores)
struct PostgresStoreWriteProcedureTests {
    /// A lone write, and a lone removal, each go in one call of
    /// `write_one_committed`, never of the batch's procedure.
    @Test func aLoneWriteCallsTheOneKeyProcedure() async throws {
        let database = try TestDatabase.shared()
        let schema = "one_\(UUID().uuidString.prefix(8).lowercased())"
        let store = try await database.openStore(namespace: "one", options: .init(schema: schema))
        try await store.setAndCommit(1, forKey: "count")
        try store.removeValue(forKey: "count")
        try await store.commitPendingWrites()
        #expect(try database.psql("SELECT coalesce(value, 'NULL') || ' ' || removed FROM \(schema).entries WHERE key = 'count'") == "NULL true")
        #expect(try database.calls(of: "write_one_committed", in: schema) == 2)
        #expect(try database.calls(of: "write_committed", in: schema) == 0)
    }

    /// Tables whose write procedures are of version 2, opened by a role
    /// that may not add the one-key procedure, still write with the
    /// procedures they have, not with a statement and a second question.
    @Test func writeProceduresOfVersion2ServeARoleThatMayNotAddTheOneKeyProcedure() async throws {
        let database = try TestDatabase.shared()
        let schema = "writes2_\(UUID().uuidString.prefix(8).lowercased())"
        _ = try await database.openStore(namespace: "one", options: .init(schema: schema))
        try database.psql(
            "DROP PROCEDURE \(schema).write_one_committed; UPDATE \(schema).schema_versions SET version = 2 WHERE component = 'writes'")
        let (store, _, _) = try await database.openStoreAsRestrictedRole(schema: schema)
        try await store.setAndCommit("written", forKey: "motto")
        #expect(try database.psql("SELECT value FROM \(schema).entries WHERE key = 'motto'") == "\"written\"")
        #expect(try database.calls(of: "write_committed", in: schema) == 1)
        #expect(try database.psql("SELECT version FROM \(schema).schema_versions WHERE component = 'writes'") == "2")
    }
}

extension TestDatabase {
    /// How many times `pg_stat_statements` saw a `CALL` of `procedure` of `schema`, by any session.
    fileprivate func calls(of procedure: String, in schema: String) throws -> Int {
        let calls = try psql(
            "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements WHERE query LIKE 'CALL %\(schema)%.\(procedure)(%'")
        return Int(calls) ?? -1
    }
}
