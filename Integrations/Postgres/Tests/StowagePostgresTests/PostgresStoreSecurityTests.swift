import Foundation
import NIOSSL
import StowagePostgres
import Testing

/// Credentials stay out of what the store says, and TLS works against the
/// test server with the certificate the script made.
@Suite(.runsStores)
struct PostgresStoreSecurityTests {
    /// The store talks TLS when configured to, verifying the server's
    /// certificate: the server's own view of the store's connections says so,
    /// its listening connection included, though stores of this process
    /// without TLS listen on the same database.
    @Test func aStoreConnectsOverVerifiedTLS() async throws {
        let database = try TestDatabase.shared()
        let namespace = TestDatabase.uniqueNamespace()
        let applicationName = "stowage-tls-\(UUID().uuidString.prefix(8))"
        var configuration = try database.tlsConfiguration()
        configuration.options.additionalStartupParameters = [("application_name", applicationName)]
        let plain = try await database.openStore(namespace: namespace)  // listens first, without TLS
        let store = try PostgresStore(configuration: configuration, namespace: namespace)
        try RunningStores.run(store)
        try await store.ready(timeout: .seconds(30))
        try await store.setAndCommit("over TLS", forKey: "channel")

        let listenerName = "\(applicationName) listener"
        let encrypted = try await database.withClient { client in
            var found: [String: [Bool]] = [:]
            let query: PostgresQuery = """
                SELECT a.application_name, s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
                WHERE a.application_name IN (\(applicationName), \(listenerName))
                """
            for try await (name, ssl) in try await client.query(query).decode((String, Bool).self) { found[name, default: []].append(ssl) }
            return found
        }
        #expect(encrypted[applicationName]?.isEmpty == false, "the store's connections were not found")
        #expect(encrypted[listenerName]?.count == 1, "the store's listening connection was not found")
        #expect(encrypted.values.joined().allSatisfy { $0 })
        withExtendedLifetime(plain) {}
        let reopened = try PostgresStore(configuration: database.tlsConfiguration(), namespace: namespace)
        try RunningStores.run(reopened)
        try await reopened.ready(timeout: .seconds(30))
        #expect(try reopened.value(forKey: "channel", as: String.self) == "over TLS")
    }

    /// A server whose certificate is not trusted is refused, with an error that says why.
    @Test func anUntrustedCertificateIsRefused() async throws {
        let database = try TestDatabase.shared()
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([])
        let configuration = PostgresClient.Configuration(
            host: database.host, port: database.port, username: database.user, password: database.password, database: database.database, tls: .require(tls))
        let store = try PostgresStore(configuration: configuration, namespace: TestDatabase.uniqueNamespace(), options: .init(operationTimeout: .seconds(10)))
        try RunningStores.run(store)
        let error = await #expect(throws: StorageError.self) { try await store.ready(timeout: .seconds(5)) }
        #expect(error?.code == .timedOut)
        #expect(error?.message.contains("could not connect") == true, "\(error?.message ?? "")")
        #expect(error?.message.lowercased().contains("certificate") == true, "\(error?.message ?? "")")
        #expect(!store.isReady)
    }

    /// A wrong password gives an error that says the authentication failed,
    /// and neither it, the store's description nor any report holds a password.
    @Test func noDescriptionErrorOrReportHoldsThePassword() async throws {
        let database = try TestDatabase.shared()
        let reports = RecordedReports.errors
        let events = RecordedReports.events
        let wrongPassword = "wrong-\(UUID().uuidString)"
        let configuration = PostgresClient.Configuration(
            host: database.host, port: database.port, username: database.user, password: wrongPassword, database: database.database, tls: .disable)
        let store = try PostgresStore(configuration: configuration, namespace: TestDatabase.uniqueNamespace(), options: .init(operationTimeout: .seconds(10)))
        try RunningStores.run(store)
        let error = try #require(await #expect(throws: StorageError.self) { try await store.ready(timeout: .seconds(5)) })
        #expect(error.message.contains("password authentication failed"), "\(error.message)")

        let good = try await database.openStore(namespace: TestDatabase.uniqueNamespace())
        try await good.setAndCommit(1, forKey: "k")
        var texts = [store.description, good.description, error.description, String(reflecting: error), store.lastError?.description ?? ""]
        texts += reports.all.map(\.description)
        // A store that never connected reports the failure as an error naming it, with no password.
        let failure = try #require(await reports.first { $0.storeName == store.description })
        #expect(failure.message.contains("password authentication failed"), "\(failure)")
        texts += events.all.flatMap { [$0.description, $0.details.description, $0.error?.description ?? ""] }
        for text in texts {
            #expect(!text.contains(wrongPassword), "\(text)")
            #expect(!text.contains(database.password), "\(text)")
        }
        #expect(store.description.contains("\(database.host):\(database.port)/\(database.database)"))
    }

    /// An error's description printed postgres-nio's error, which holds the
    /// statement and its bound values (`query: PostgresQuery(sql: INSERT
    /// INTO …`), and a bound value may be a secret the app wrote. The store's
    /// errors keep the SQLSTATE and the server's message, and nothing of the query.
    @Test func noErrorHoldsAStatementOrABoundValue() async throws {
        let database = try TestDatabase.shared()
        let schema = "statement_\(UUID().uuidString.prefix(8).lowercased())"
        let store = try await database.openStore(namespace: "n", options: .init(schema: schema))
        try await database.withClient { client in
            try await client.query(PostgresQuery(unsafeSQL: "ALTER TABLE \(schema).entries ADD CONSTRAINT no_forbidden CHECK (key <> 'forbidden')"))
        }
        let value = "bound-\(UUID().uuidString)"
        let error = try #require(await #expect(throws: StorageError.self) { try await store.setAndCommit(value, forKey: "forbidden") })
        let underlying = try #require(error.underlyingError as? PostgresStore.DatabaseError, "\(String(describing: error.underlyingError))")
        #expect(underlying.sqlState == "23514")
        #expect(underlying.message.contains("no_forbidden"), "\(underlying.message)")
        let reported = try #require(await RecordedReports.errors.first { $0.key == "forbidden" && $0.storeName == store.description })
        for text in [error.description, String(reflecting: error), reported.description, String(reflecting: underlying)] {
            #expect(text.contains("SQLSTATE 23514"), "\(text)")
            for query in ["INSERT", "PostgresQuery", "sql:", value] {
                #expect(!text.contains(query), "\(text)")
            }
        }
    }
}
