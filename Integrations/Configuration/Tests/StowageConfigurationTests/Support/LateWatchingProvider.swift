import Configuration
import Foundation
import Stowage
import StowageLocking

/// A provider that begins watching its snapshots only when the test says so,
/// as a provider that suspends before it registers its watcher does (and, on
/// Apple systems before 26, every provider, where the store's watch starts on
/// another task): reads made before then are the store's early reads.
final class LateWatchingProvider: ConfigProvider, Sendable {
    let inner: MutableInMemoryProvider
    private let gate = Locked<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    init(_ inner: MutableInMemoryProvider) { self.inner = inner }

    /// Lets every watch begin.
    func startWatching() {
        let waiters = gate.withLock { gate in
            gate.isOpen = true
            defer { gate.waiters.removeAll() }
            return gate.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func waitForStart() async {
        await withCheckedContinuation { continuation in
            let isOpen = gate.withLock { gate in
                if !gate.isOpen { gate.waiters.append(continuation) }
                return gate.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }

    var providerName: String { "LateWatchingProvider" }

    func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        try inner.value(forKey: key, type: type)
    }

    func fetchValue(forKey key: AbsoluteConfigKey, type: ConfigType) async throws -> LookupResult {
        try await inner.fetchValue(forKey: key, type: type)
    }

    nonisolated(nonsending) func watchValue<Return: ~Copyable>(
        forKey key: AbsoluteConfigKey, type: ConfigType,
        updatesHandler: nonisolated(nonsending) (_ updates: ConfigUpdatesAsyncSequence<Result<LookupResult, any Error>, Never>) async throws -> Return
    ) async throws -> Return {
        await waitForStart()
        return try await inner.watchValue(forKey: key, type: type, updatesHandler: updatesHandler)
    }

    func snapshot() -> any ConfigSnapshot { inner.snapshot() }

    nonisolated(nonsending) func watchSnapshot<Return: ~Copyable>(
        updatesHandler: nonisolated(nonsending) (_ updates: ConfigUpdatesAsyncSequence<any ConfigSnapshot, Never>) async throws -> Return
    ) async throws -> Return {
        await waitForStart()
        return try await inner.watchSnapshot(updatesHandler: updatesHandler)
    }
}
