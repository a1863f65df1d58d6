package import Foundation
import Stowage
import StowageLocking

extension UserDefaultsStore {
    /// Reads the defaults' file again, and announces every key whose value
    /// another process changed.
    ///
    /// On Linux, `UserDefaults` never rereads its file on its own: measured,
    /// a long-running process did not see another's write after 45 seconds.
    /// Nor does `synchronize()` always reread it: while other suites were
    /// written in the same process, it kept serving the old values. So on
    /// Linux this reads the file itself and, where it differs from what
    /// `UserDefaults` holds, hands it the file's contents. Call it when told
    /// the settings changed, or on a timer. On Apple platforms the system
    /// keeps the defaults of all processes in step, and this announces what
    /// changed since the store last looked.
    /// - Throws: `StorageError` when the file can not be read or parsed; nothing is changed then.
    public func refresh() throws {
        let (changed, now) = try UserDefaultsAccess.withLock { () throws(StorageError) -> ([String], [String: StoredValue]) in
            guard userDefaults.synchronize() else {
                throw StorageError(code: .storeFailure, reason: "UserDefaults could not read or write its file (\(description)).")
            }
            #if canImport(Darwin)
            let current = userDefaults.persistentDomain(forName: domainName) ?? [:]
            #else
            // What the other process wrote: `UserDefaults` did not always reread it.
            let current = try fileContents()
            try adopt(current)
            #endif
            let now = current.compactMapValues { try? PropertyListForm.storedValue(from: $0, key: "") }
            let changed = lastSeen.withLock { seen in
                defer { seen = now }
                // A key whose value Stowage can not read is announced every time, so a reference reports it.
                return Set(seen.keys).union(current.keys).filter { seen[$0] != now[$0] || now[$0] == nil }.sorted()
            }
            // Under the lock, so no reader sees some of the new values with others' old ones cached.
            discardCachedValues(forKeys: changed)
            return (changed, now)
        }
        announceChanges(forKeys: changed)
        for sibling in UserDefaultsStoreRegistry.siblings(of: self) {
            sibling.lastSeen.withLock { $0 = now }
            sibling.announceChanges(forKeys: changed)
        }
    }

    #if !canImport(Darwin)
    /// Makes `UserDefaults` hold what the file holds, key by key, where it
    /// does not already: `setPersistentDomain` would post a notification,
    /// running the app's observers under the lock, and rewrite every key.
    /// Synchronised at once, so the keys set here are not written back later
    /// over another process's newer values.
    private func adopt(_ file: [String: Any]) throws(StorageError) {
        let memory = userDefaults.persistentDomain(forName: domainName) ?? [:]
        let differing = Set(memory.keys).union(file.keys).filter { key in
            guard let inMemory = memory[key], let onDisk = file[key] else { return true }
            return !Self.holdsTheSameValue(inMemory, onDisk, key: key)
        }
        guard !differing.isEmpty else { return }
        changeObservation.asOwnChange {
            for key in differing {
                if let value = file[key] { userDefaults.set(value, forKey: key) } else { userDefaults.removeObject(forKey: key) }
            }
        }
        guard userDefaults.synchronize() else {
            throw StorageError(code: .storeFailure, reason: "UserDefaults could not write its file (\(description)).")
        }
    }
    #endif

    /// Whether two objects `UserDefaults` returned hold one value; one Stowage
    /// can not read counts as changed, so a reference reads it and reports why.
    static func holdsTheSameValue(_ old: Any, _ new: Any, key: String) -> Bool {
        guard let oldValue = try? PropertyListForm.storedValue(from: old, key: key),
            let newValue = try? PropertyListForm.storedValue(from: new, key: key)
        else { return false }
        return oldValue == newValue
    }

    #if !canImport(Darwin)
    /// The file swift-corelibs-foundation keeps the domain in (see `SuiteFileLocation`).
    package var fileURL: URL {
        SuiteFileLocation.file(ofDomain: domainName)
    }

    /// The suite's file as a dictionary: empty when there is no file.
    private func fileContents() throws(StorageError) -> [String: Any] {
        let data: Data
        do {
            data = try Data(contentsOf: fileURL)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return [:]
        } catch {
            throw StorageError(code: .storeFailure, reason: "The file of \(description) could not be read.", underlyingError: error)
        }
        guard let contents = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] else {
            throw StorageError(
                code: .storeFailure,
                reason: "The file of \(description) is not a property list of a dictionary; left as it is, and UserDefaults keeps what it held.")
        }
        return contents
    }
    #endif
}
