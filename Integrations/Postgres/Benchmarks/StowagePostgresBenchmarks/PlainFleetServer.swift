import Foundation
import StowageLocking
import StowagePostgres
import StowageBenchmarkSupport

/// The fleet group's floor: a server written by hand on a plain postgres-nio
/// client, doing the least a server must do when notices carry no values.
///
/// It listens on the stores' channel and, for the keys the notices of its
/// namespace name, sends the store's own read of changed rows
/// (`SELECT key, value, revision … WHERE namespace = $1 AND key = ANY($2)`)
/// on a second connection of its client. Keys named while a read is out go
/// into the next read, as the store batches them. It keeps no cache, checks
/// no revision, reports no status and runs no observer: the rest of what the
/// store costs is its own.
final class PlainFleetServer: Sendable {
    private let client: PostgresClient
    private let namespace: String
    let log: HearingLog
    /// Keys named by notices and not read yet.
    private let pending = Locked<Set<String>>([])
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    init(configuration: PostgresClient.Configuration, namespace: String, log: HearingLog) {
        client = PostgresClient(configuration: configuration)
        self.namespace = namespace
        self.log = log
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Runs until cancelled or until a connection fails; `listening` is called once `LISTEN` is in place.
    func run(listening: @escaping @Sendable () -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await self.client.run() }
            group.addTask { try await self.readNamedKeys() }
            group.addTask { try await self.listen(then: listening) }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    private func listen(then listening: @escaping @Sendable () -> Void) async throws {
        try await client.withConnection { connection in
            try await connection.listen(on: BenchmarkDatabase.storeSchema) { notices in
                listening()
                for try await notice in notices {
                    guard let key = Self.key(in: notice.payload, namespace: namespace) else { continue }
                    pending.withLock { _ = $0.insert(key) }
                    wake.yield()
                }
            }
        }
    }

    private func readNamedKeys() async throws {
        try await client.withConnection { connection in
            for await _ in wakeups {
                let keys = pending.withLock { pending in
                    defer { pending.removeAll() }
                    return Array(pending)
                }
                guard !keys.isEmpty else { continue }
                let rows = try await connection.query(
                    "SELECT key, value, revision FROM stowage.entries WHERE namespace = \(namespace) AND key = ANY(\(keys))",
                    logger: BenchmarkDatabase.silentLogger)
                var ids: [String] = []
                for try await (_, value, _) in rows.decode((String, String?, Int64).self) {
                    // The store keeps a string as its JSON text: "a-17", quotes included.
                    if let value, value.count > 2 { ids.append(String(value.dropFirst().dropLast())) }
                }
                log.record(ids, at: .now())
            }
        }
    }

    /// The key a notice of the stores' trigger names, if it concerns `namespace`.
    private static func key(in payload: String, namespace: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any],
            object["namespace"] as? String == namespace
        else { return nil }
        return object["key"] as? String
    }
}
