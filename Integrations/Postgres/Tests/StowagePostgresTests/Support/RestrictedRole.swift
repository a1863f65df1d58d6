import Foundation
import PostgresNIO
import StowagePostgres

extension TestDatabase {
    /// Opens a store on the tables of `schema` as a new role that may read
    /// and write them but owns nothing there, so it can add no trigger or
    /// routine: as a DBA grants an application.
    /// - Returns: the store, running and loaded, the role's password, which no report may show, and the role.
    func openStoreAsRestrictedRole(
        schema: String, options: PostgresStore.Options = .init()
    ) async throws -> (store: PostgresStore, password: String, role: String) {
        let role = "restricted_\(UUID().uuidString.prefix(8).lowercased())"
        let password = UUID().uuidString
        try psql(
            """
            CREATE ROLE \(role) LOGIN PASSWORD '\(password)'; GRANT USAGE ON SCHEMA \(schema) TO \(role);
            GRANT SELECT, INSERT, UPDATE ON \(schema).entries, \(schema).schema_versions TO \(role);
            GRANT USAGE ON SEQUENCE \(schema).revisions TO \(role)
            """)
        let configuration = PostgresClient.Configuration(
            host: host, port: port, username: role, password: password, database: database, tls: .disable)
        var options = options
        options.schema = schema
        let store = try PostgresStore(configuration: configuration, namespace: "one", options: options)
        try RunningStores.run(store)
        try await store.ready(timeout: .seconds(30))
        return (store, password, role)
    }
}
