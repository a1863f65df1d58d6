#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import StowageInMemory
import StowageLocking
import StowageTestSupport
import StowageTesting
import Testing

struct InMemoryStoreConformanceTests {
    typealias Suite = StorageConformanceSuite<InMemoryStore>

    /// The suite as every built-in store runs it, with external changes made
    /// through `restore(_:)`, which announces exactly the keys it changed.
    static let suite = Suite(
        options: Suite.Options(externalChange: { store, key, value in
            var snapshot = store.snapshot()
            snapshot[key] = value
            store.restore(snapshot)
        })
    ) {
        InMemoryStore()
    }

    @Test(arguments: Suite.Check.allCases)
    func inMemoryStorePasses(_ check: Suite.Check) async throws {
        let report = try await Self.suite.run(check)
        #expect(report.passed == [check])
        #expect(report.skipped.isEmpty)
    }

    @Test func runningTheWholeSuitePassesEveryCheckAndSkipsNone() async throws {
        let report = try await Self.suite.run()
        #expect(report.passed == ConformanceCheck.allCases)
        #expect(report.skipped.isEmpty)
        #expect(report.isSuccessful)
    }

    @Test func withoutAnExternalChangeTheCheckIsReportedSkippedNotPassed() async throws {
        let report = try await StorageConformanceSuite { InMemoryStore() }.run()
        #expect(report.skipped.map(\.check) == [.externalChange])
        #expect(!report.passed.contains(.externalChange))
        #expect(report.passed.count == ConformanceCheck.allCases.count - 1)
        #expect(report.description.contains("1 skipped"))
        #expect(report.description.contains("Skipped external change"))

        let single = try await StorageConformanceSuite { InMemoryStore() }.run(.externalChange)
        #expect(single.passed.isEmpty)
        #expect(single.skipped.map(\.check) == [.externalChange])
    }

    // MARK: The suite catches bad stores

    @Test func aStoreWithoutFlawsPassesEveryCheck() async throws {
        let report = try await Self.flawedSuite([]).run()
        #expect(report.passed == ConformanceCheck.allCases)
    }

    @Test(arguments: FlawedStore.Flaw.allCases)
    func aFlawedStoreFailsTheCheckMeantToCatchIt(_ flaw: FlawedStore.Flaw) async throws {
        let failure = try await #require(throws: ConformanceFailure.self) {
            try await Self.flawedSuite([flaw]).run(flaw.caughtBy)
        }
        #expect(failure.failedChecks == [flaw.caughtBy])
        #expect(!failure.issues.isEmpty)
        #expect(failure.report.passed.isEmpty)
    }

    @Test func aFailureListsEveryFailedCheckWithItsMessages() async throws {
        let suite = Self.flawedSuite([.dropsDoubleWrites, .foldsKeyCase])
        let failure = try await #require(throws: ConformanceFailure.self) {
            try await suite.run([.roundTripOfScalars, .absentKeys, .keyIndependence])
        }
        #expect(failure.failedChecks == [.roundTripOfScalars, .keyIndependence])
        #expect(failure.report.passed == [.absentKeys])
        let description = String(describing: failure)
        #expect(description.contains("FlawedStore: 1 of 3 conformance checks passed, 2 failed, 0 skipped."))
        #expect(description.contains("Failed round trip of scalars:"))
        #expect(description.contains("Failed key independence:"))
        #expect(description.contains("Double.greatestFiniteMagnitude"))
        #expect(description.contains("\"Key\" read 999; expected 10."))
    }

    @Test func aStoreThatThrowsOnEveryCallFailsWithoutTrapping() async throws {
        let suite = StorageConformanceSuite(options: .init(changeTimeout: .milliseconds(100), concurrentTasks: 2, iterationsPerTask: 5)) {
            ThrowingStore()
        }
        let failure = try await #require(throws: ConformanceFailure.self) { try await suite.run() }
        #expect(failure.failedChecks.contains(.roundTripOfScalars))
        #expect(failure.failedChecks.contains(.concurrentModify))
        #expect(failure.issues.contains { $0.message.contains("threw an error") })
    }

    @Test func aMakeStorageThatThrowsFailsEveryCheckThatRuns() async throws {
        struct NoStore: Error {}
        let suite = StorageConformanceSuite<InMemoryStore> { throw NoStore() }
        let failure = try await #require(throws: ConformanceFailure.self) { try await suite.run() }
        #expect(failure.failedChecks == ConformanceCheck.allCases.filter { $0 != .externalChange })
        #expect(failure.issues.allSatisfy { $0.message.contains("makeStorage threw an error") })
        #expect(failure.report.skipped.map(\.check) == [.externalChange])
    }

    @Test func nonsensicalConcurrencyOptionsFailTheConcurrencyChecks() async throws {
        let suite = StorageConformanceSuite(options: .init(concurrentTasks: 0)) { InMemoryStore() }
        let failure = try await #require(throws: ConformanceFailure.self) {
            try await suite.run([.concurrentModify, .concurrentWritersOfDistinctKeys, .readsDuringWrites])
        }
        #expect(failure.failedChecks == [.concurrentModify, .concurrentWritersOfDistinctKeys, .readsDuringWrites])
    }

    /// The concurrency checks' rounds, against the compiler's own answer to
    /// whether this build is sanitized (CI runs the tests plain, under
    /// ThreadSanitizer and under AddressSanitizer).
    @Test func theConcurrencyChecksRunAFifthOfTheirRoundsUnderASanitizer() {
        let expected = TestScale.isSanitized ? 50 : 250
        #expect(StorageConformanceSuite<InMemoryStore>.Options.defaultIterationsPerTask == expected)
        #expect(StorageConformanceSuite<InMemoryStore>.Options().iterationsPerTask == expected)
    }

    /// The suite for a `FlawedStore`, with a short change timeout: missing
    /// notifications are expected there, and waiting the default two seconds
    /// for each would only slow the tests.
    static func flawedSuite(_ flaws: Set<FlawedStore.Flaw>) -> StorageConformanceSuite<FlawedStore> {
        let options = StorageConformanceSuite<FlawedStore>.Options(
            externalChange: { store, key, value in store.changeBehindStowagesBack(key, to: value) },
            changeTimeout: .milliseconds(250)
        )
        return StorageConformanceSuite(options: options) { FlawedStore(flaws) }
    }
}

extension InMemoryStoreConformanceTests {
    /// A store with deliberate flaws, each of which one check must catch.
    /// Without flaws it is a correct store, which the control test proves.
    final class FlawedStore: UnderlyingStorage {
        enum Flaw: String, CaseIterable, Sendable, CustomStringConvertible {
            case dropsDoubleWrites
            case storesIntegersAsDoubles
            case truncatesStringsAtNUL
            case truncatesDataAtZeroByte
            case truncatesDatesToSeconds
            case dropsNullsInArrays
            case dropsEmptyCollections
            case returnsNullForAbsentKeys
            case throwsOnRemovingAbsentKeys
            case foldsKeyCase
            case sharesEntriesAcrossInstances
            case mapsSlashesToDots
            case ignoresExpectedValue
            case nonAtomicReplace
            case tearsDictionaryWrites
            case neverAnnounces
            case replacesKeysOneByOne
            case listsRemovedKeys

            var description: String { rawValue }

            /// The check written to catch this flaw.
            var caughtBy: ConformanceCheck {
                switch self {
                case .dropsDoubleWrites, .storesIntegersAsDoubles: .roundTripOfScalars
                case .truncatesStringsAtNUL: .roundTripOfStrings
                case .truncatesDataAtZeroByte: .roundTripOfData
                case .truncatesDatesToSeconds: .roundTripOfFoundationValues
                case .dropsNullsInArrays: .roundTripOfOptionals
                case .dropsEmptyCollections: .roundTripOfCollections
                case .returnsNullForAbsentKeys: .absentKeys
                case .throwsOnRemovingAbsentKeys: .removal
                case .foldsKeyCase, .sharesEntriesAcrossInstances: .keyIndependence
                case .mapsSlashesToDots: .unusualKeys
                case .ignoresExpectedValue: .compareAndSwap
                case .nonAtomicReplace: .concurrentModify
                case .tearsDictionaryWrites: .readsDuringWrites
                case .neverAnnounces: .externalChange
                case .replacesKeysOneByOne: .multiKeyCompareAndSwap
                case .listsRemovedKeys: .listing
                }
            }
        }

        struct NoSuchKey: Error {
            let key: String
        }

        /// Only stores with `sharesEntriesAcrossInstances` use it.
        private static let sharedEntries = Locked<[String: StoredValue]>([:])

        let flaws: Set<Flaw>
        private let entries: Locked<[String: StoredValue]>
        /// Only stores with `listsRemovedKeys` fill it.
        private let removedEntries = Locked<[String: StoredValue]>([:])

        init(_ flaws: Set<Flaw>) {
            self.flaws = flaws
            entries = flaws.contains(.sharesEntriesAcrossInstances) ? Self.sharedEntries : Locked([:])
        }

        func storedValue(forKey key: String, _ access: BackendAccess) -> StoredValue? {
            let key = storedKey(key)
            let value = entries.withLock { $0[key] }
            if value == nil, flaws.contains(.returnsNullForAbsentKeys) { return .null }
            return value
        }

        func setStoredValue(_ value: StoredValue, forKey key: String, _ access: BackendAccess) {
            let key = storedKey(key)
            guard let kept = keptForm(of: value) else { return }
            if flaws.contains(.tearsDictionaryWrites), case .dictionary(let fields) = kept, let first = fields.min(by: { $0.key < $1.key }) {
                entries.withLock { $0[key] = .dictionary([first.key: first.value]) }
                // Widens the window in which a reader sees half a value.
                usleep(50)
            }
            entries.withLock { $0[key] = kept }
        }

        func removeStoredValue(forKey key: String, _ access: BackendAccess) throws {
            let key = storedKey(key)
            let removed = entries.withLock { $0.removeValue(forKey: key) }
            if removed == nil, flaws.contains(.throwsOnRemovingAbsentKeys) { throw NoSuchKey(key: key) }
            if let removed, flaws.contains(.listsRemovedKeys) { removedEntries.withLock { $0[key] = removed } }
        }

        func storedEntries(_ access: BackendAccess) -> [String: StoredValue] {
            let removed = removedEntries.withLock { $0 }
            return entries.withLock { $0 }.merging(removed) { current, _ in current }
        }

        func replaceStoredValues(expecting expected: [String: StoredValue?], with replacements: [String: StoredValue?], _ access: BackendAccess) throws -> Bool
        {
            guard flaws.contains(.replacesKeysOneByOne) else {
                return entries.withLock { entries in
                    guard expected.allSatisfy({ entries[storedKey($0.key)] == $0.value }) else { return false }
                    for (key, value) in replacements { entries[storedKey(key)] = value.flatMap { keptForm(of: $0) } }
                    return true
                }
            }
            for key in Set(expected.keys).union(replacements.keys).sorted() {
                let replacement = replacements[key] ?? expected[key] ?? nil
                guard try replaceStoredValue(forKey: key, expecting: expected[key] ?? nil, with: replacement, .granted) else { return false }
            }
            return true
        }

        func replaceStoredValue(forKey key: String, expecting expected: StoredValue?, with newValue: StoredValue?, _ access: BackendAccess) throws -> Bool {
            if flaws.contains(.ignoresExpectedValue) {
                try apply(newValue, forKey: key)
                return true
            }
            if flaws.contains(.nonAtomicReplace) {
                guard storedValue(forKey: key, .granted) == expected else { return false }
                // Widens the window in which another writer's update is lost.
                usleep(50)
                try apply(newValue, forKey: key)
                return true
            }
            let key = storedKey(key)
            let kept = newValue.map { keptForm(of: $0) }
            return entries.withLock { entries in
                guard entries[key] == expected else { return false }
                switch kept {
                case .none: entries[key] = nil
                case .some(.none): break
                case .some(.some(let value)): entries[key] = value
                }
                return true
            }
        }

        /// Changes a key the way another process would, announcing it unless the store never announces.
        func changeBehindStowagesBack(_ key: String, to value: StoredValue?) {
            let storedKey = storedKey(key)
            entries.withLock { $0[storedKey] = value }
            if !flaws.contains(.neverAnnounces) { announceChange(forKey: key) }
        }

        private func apply(_ value: StoredValue?, forKey key: String) throws {
            if let value { setStoredValue(value, forKey: key, .granted) } else { try removeStoredValue(forKey: key, .granted) }
        }

        private func storedKey(_ key: String) -> String {
            var key = key
            if flaws.contains(.foldsKeyCase) { key = key.lowercased() }
            if flaws.contains(.mapsSlashesToDots) { key = key.replacing("/", with: ".") }
            return key
        }

        /// What the store keeps of `value`; `nil` when it drops the write.
        private func keptForm(of value: StoredValue) -> StoredValue? {
            switch value {
            case .double where flaws.contains(.dropsDoubleWrites):
                nil
            case .signedInteger(let number) where flaws.contains(.storesIntegersAsDoubles):
                .double(Double(number))
            case .unsignedInteger(let number) where flaws.contains(.storesIntegersAsDoubles):
                .double(Double(number))
            case .string(let text) where flaws.contains(.truncatesStringsAtNUL):
                .string(String(text.prefix { $0 != "\u{0}" }))
            case .data(let bytes) where flaws.contains(.truncatesDataAtZeroByte):
                .data(Data(bytes.prefix { $0 != 0 }))
            case .date(let date) where flaws.contains(.truncatesDatesToSeconds):
                .date(Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)))
            case .array(let elements) where flaws.contains(.dropsNullsInArrays):
                .array(elements.filter { $0 != .null })
            case .array([]) where flaws.contains(.dropsEmptyCollections), .dictionary([:]) where flaws.contains(.dropsEmptyCollections):
                nil
            default:
                value
            }
        }
    }

    /// A store whose every call throws, as one whose disk is gone would.
    final class ThrowingStore: UnderlyingStorage {
        struct Unavailable: Error {}

        func storedValue(forKey key: String, _ access: BackendAccess) throws -> StoredValue? { throw Unavailable() }
        func setStoredValue(_ value: StoredValue, forKey key: String, _ access: BackendAccess) throws { throw Unavailable() }
        func removeStoredValue(forKey key: String, _ access: BackendAccess) throws { throw Unavailable() }
    }
}
