import Foundation
import StowageJSONFile

/// The settings file groups 6 to 8 open and write: 10,000 keys of mixed
/// values, about 280 KB as `JSONFileStore` pretty-prints it, and what the
/// baselines need to handle the same content.
enum JSONFileFixture {
    static let keyCount = 10_000

    /// `g12.k34`: short keys that share prefixes, as real settings do; short
    /// enough that 10,000 of them make the file the size asked for.
    static func key(_ index: Int) -> String {
        "g\(index / 100).k\(index % 100)"
    }

    /// Of every 20 values: 9 ints, 2 short doubles and 1 long one, 3 short
    /// strings and 1 longer one, 2 bools, a small array and a small object.
    /// Arrays hold one type, because swift-configuration's `JSONSnapshot`
    /// (group 6c) refuses mixed arrays.
    static func value(_ index: Int) -> StoredValue {
        switch index % 20 {
        case 0...8: .signedInteger(Int64(index &* 7919 % 1_000_003))
        case 9, 10: .double(Double(index) * 0.25)
        case 11: .double(Double(index) / 7)
        case 12...14: .string("value \(index)")
        case 15: .string("A longer setting value, number \(index)")
        case 16, 17: .bool(index % 3 == 0)
        case 18: .array([.signedInteger(Int64(index)), .signedInteger(Int64(index + 1)), .signedInteger(Int64(index + 2))])
        default: .dictionary(["enabled": .bool(true), "count": .signedInteger(Int64(index)), "label": .string("item \(index)")])
        }
    }

    static var document: [String: StoredValue] {
        Dictionary(uniqueKeysWithValues: (0..<keyCount).map { (key($0), value($0)) })
    }

    /// Options that keep the benchmarks' own timing: no background write
    /// within the measured region (only `flush()` writes) and no change monitor.
    static var quietOptions: JSONFileStore.Options {
        JSONFileStore.Options(writeDelay: .seconds(3600), changeDetection: .none)
    }

    /// The file's bytes as `JSONFileStore` writes them (pretty-printed, sorted
    /// keys), made once per process by a store of its own in `directory`.
    static func fileBytes(in directory: TemporaryDirectory) throws -> Data {
        let path = directory.path("fixture-10000.json")
        let store = JSONFileStore(url: URL(filePath: path), options: quietOptions)
        for (key, value) in document {
            try store.set(value, forKey: key)
        }
        try store.flush()
        return try Data(contentsOf: URL(filePath: path))
    }
}

/// The Codable equivalent of the fixture's values, for the `JSONEncoder`
/// baseline (group 7b): what a store built on `JSONEncoder` would keep. Each
/// case encodes as its plain JSON form through a single-value container, so the
/// output matches `JSONFileStore`'s content.
enum CodableJSONValue: Encodable, Sendable {
    case integer(Int64)
    case double(Double)
    case string(String)
    case bool(Bool)
    case array([CodableJSONValue])
    case object([String: CodableJSONValue])

    init(_ value: StoredValue) {
        switch value {
        case .signedInteger(let number): self = .integer(number)
        case .unsignedInteger(let number): self = .integer(Int64(truncatingIfNeeded: number))
        case .double(let number): self = .double(number)
        case .string(let text): self = .string(text)
        case .bool(let flag): self = .bool(flag)
        case .array(let elements): self = .array(elements.map(CodableJSONValue.init))
        case .dictionary(let members): self = .object(members.mapValues(CodableJSONValue.init))
        case .null, .data, .date: fatalError("not in the fixture")
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .integer(let number): try container.encode(number)
        case .double(let number): try container.encode(number)
        case .string(let text): try container.encode(text)
        case .bool(let flag): try container.encode(flag)
        case .array(let elements): try container.encode(elements)
        case .object(let members): try container.encode(members)
        }
    }
}

/// The fixture as `JSONSerialization` takes it (group 7d).
extension StoredValue {
    var foundationObject: Any {
        switch self {
        case .signedInteger(let number): number
        case .unsignedInteger(let number): number
        case .double(let number): number
        case .string(let text): text
        case .bool(let flag): flag
        case .array(let elements): elements.map(\.foundationObject)
        case .dictionary(let members): members.mapValues(\.foundationObject)
        case .null: NSNull()
        case .data, .date: fatalError("not in the fixture")
        }
    }
}

/// A directory under /tmp of this process's own, removed by `remove()`.
struct TemporaryDirectory: Sendable {
    let root: String

    init(_ name: String) throws {
        root = "/tmp/stowage-benchmarks-\(ProcessInfo.processInfo.processIdentifier)/\(name)"
        try? FileManager.default.removeItem(atPath: root)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { root + "/" + name }

    /// Removes the directory, and this process's parent directory once it is empty.
    func remove() {
        try? FileManager.default.removeItem(atPath: root)
        let parent = (root as NSString).deletingLastPathComponent
        if (try? FileManager.default.contentsOfDirectory(atPath: parent))?.isEmpty == true {
            try? FileManager.default.removeItem(atPath: parent)
        }
    }
}
