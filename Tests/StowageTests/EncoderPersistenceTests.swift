import Foundation
import Stowage
import StowageLocking
import StowageTestSupport
import StowageTesting
import Testing

/// A store of the custom storage guide's kind, persisting with a Foundation
/// encoder, that rereads its file on every read: each value the conformance
/// suite writes makes the full trip through the encoder and decoder.
final class EncodedFileStore: UnderlyingStorage {
    enum Format: String, Sendable, CaseIterable {
        case json, xmlPropertyList, binaryPropertyList
    }

    let fileURL: URL
    let format: Format
    private let lock = Locked(())

    init(fileURL: URL, format: Format) {
        self.fileURL = fileURL
        self.format = format
    }

    func storedValue(forKey key: String, _: BackendAccess) throws -> StoredValue? {
        try lock.withLock { try load()[key] }
    }

    func setStoredValue(_ value: StoredValue, forKey key: String, _: BackendAccess) throws {
        try update { $0[key] = value }
    }

    func removeStoredValue(forKey key: String, _: BackendAccess) throws {
        try update { $0[key] = nil }
    }

    func storedEntries(_: BackendAccess) throws -> [String: StoredValue] {
        try lock.withLock { try load() }
    }

    private func update(_ change: (inout [String: StoredValue]) -> Void) throws {
        try lock.withLock {
            var entries = try load()
            change(&entries)
            try encode(entries).write(to: fileURL, options: .atomic)
        }
    }

    private func load() throws -> [String: StoredValue] {
        guard let data = try? Data(contentsOf: fileURL) else { return [:] }
        switch format {
        case .json: return try JSONDecoder().decode([String: StoredValue].self, from: data)
        case .xmlPropertyList, .binaryPropertyList: return try PropertyListDecoder().decode([String: StoredValue].self, from: data)
        }
    }

    private func encode(_ entries: [String: StoredValue]) throws -> Data {
        switch format {
        case .json:
            return try JSONEncoder().encode(entries)
        case .xmlPropertyList, .binaryPropertyList:
            let encoder = PropertyListEncoder()
            encoder.outputFormat = format == .xmlPropertyList ? .xml : .binary
            return try encoder.encode(entries)
        }
    }
}

struct EncoderPersistenceTests {
    /// Every value the suite writes reads back as the same typed value after
    /// a trip through the encoder: -0.0 keeps its sign, a Date its time.
    @Test(arguments: EncodedFileStore.Format.allCases)
    func everyValueTheSuiteWritesSurvivesTheEncoder(format: EncodedFileStore.Format) async throws {
        let directory = TemporaryDirectory()
        let options = StorageConformanceSuite<EncodedFileStore>.Options(
            externalChange: nil,
            reopen: { EncodedFileStore(fileURL: $0.fileURL, format: $0.format) },
            // JSONEncoder refuses infinity and NaN unless told how to write them; property lists keep them.
            supportsNonFiniteDoubles: format != .json,
            concurrentTasks: 2,
            iterationsPerTask: 20
        )
        let suite = StorageConformanceSuite(options: options) {
            EncodedFileStore(fileURL: directory.url("\(UUID()).\(format.rawValue)"), format: format)
        }
        let report = try await suite.run()
        #expect(report.skipped.map(\.check) == [.externalChange])
    }

    @Test(arguments: EncodedFileStore.Format.allCases)
    func negativeZeroKeepsItsSign(format: EncodedFileStore.Format) throws {
        let directory = TemporaryDirectory()
        let url = directory.url("zero.\(format.rawValue)")
        try EncodedFileStore(fileURL: url, format: format).set(-0.0, forKey: "scalar")
        try EncodedFileStore(fileURL: url, format: format).set([0.5, -0.0], forKey: "array")
        let reopened = EncodedFileStore(fileURL: url, format: format)
        let scalar = try #require(try reopened.value(forKey: "scalar", as: Double.self))
        #expect(scalar == 0 && scalar.sign == .minus)
        let array = try #require(try reopened.value(forKey: "array", as: [Double].self))
        #expect(array.count == 2 && array[1] == 0 && array[1].sign == .minus)
    }
}
