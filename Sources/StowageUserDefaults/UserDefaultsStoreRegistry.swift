import Foundation
import Stowage
import StowageLocking

/// The live stores of the process, by the domain they write, so a write
/// through one is announced to the others over the same domain.
///
/// Stowage's references belong to one store instance, and on Linux
/// `UserDefaults` says nothing of a write, so without this a write through
/// `UserDefaultsStore.default` would never reach the references of another
/// store over `UserDefaults.standard`, nor two stores of one suite each other's.
enum UserDefaultsStoreRegistry {
    private final class Entry: @unchecked Sendable {
        // Sendable: `store` is a weak reference, only read.
        weak var store: UserDefaultsStore?
        init(_ store: UserDefaultsStore) { self.store = store }
    }

    private static let entries = Locked<[String: [Entry]]>([:])

    static func register(_ store: UserDefaultsStore) {
        entries.withLock { entries in
            entries[store.domainName, default: []].removeAll { $0.store == nil }
            entries[store.domainName, default: []].append(Entry(store))
        }
    }

    /// The other live stores over `store`'s domain.
    static func siblings(of store: UserDefaultsStore) -> [UserDefaultsStore] {
        entries.withLock { $0[store.domainName] ?? [] }.compactMap(\.store).filter { $0 !== store }
    }

    /// The live stores that read and write `defaults`.
    static func stores(over defaults: UserDefaults) -> [UserDefaultsStore] {
        entries.withLock { Array($0.values.joined()) }.compactMap(\.store).filter { $0.userDefaults === defaults }
    }
}
