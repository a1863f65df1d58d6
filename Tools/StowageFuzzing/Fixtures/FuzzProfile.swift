#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Stowage

/// A `Codable` struct with a member of every kind the decoder reads, all
/// optional and under one-letter keys, so that trees the fuzzer makes decode
/// into it often and reach every container and conversion.
struct FuzzProfile: Codable, Storable, Hashable {
    var name: String?
    var age: Int8?
    var ratio: Float?
    var scores: [Double]?
    var tags: Set<String>?
    var limits: [String: UInt16]?
    var theme: FuzzTheme?
    var created: Date?
    var avatar: Data?
    var homepage: URL?
    var id: UUID?
    var children: [FuzzProfile]?
    var namesByNumber: [Int: String]?
    var shape: FuzzShape?
    var count: UInt64?
    var wide: Int128?
    var flags: [Bool?]?
    var raw: StoredValue?
    var range: ClosedRange<Int>?
    var nested: [String: [String: Int32]]?
    var countsByID: [UUID: Int]?
    var level: Int??

    enum CodingKeys: String, CodingKey {
        case name = "a", age = "b", ratio = "c", scores = "d", tags = "e", limits = "f", theme = "g", created = "h"
        case avatar = "i", homepage = "j", id = "k", children = "l", namesByNumber = "m", shape = "n", count = "o"
        case wide = "p", flags = "q", raw = "r", range = "s", nested = "t", countsByID = "u", level = "v"
    }
}
