import Foundation
import StowageFlags
import Synchronization

/// The flags a program declares, for group 13's reads and its external
/// override: a few top-level flags of the usual types and a group.
struct AppFlags: FlagContainer {
    @Flag("Shows the new checkout flow") var newCheckout = false
    @Flag("Requests a client may make each second") var rateLimit = 100
    @Flag("The colour scheme") var theme = "light"
    @FlagGroup("Search") var search = SearchFlags()
}

struct SearchFlags: FlagContainer {
    @Flag("Ranks results with the vector index") var vectorIndex = false
    @Flag("Results on a page") var resultLimit = 20
}

/// 1,000 flags without 1,000 declarations: one block of 100 flags under 10
/// group properties, keyed `block0.flag0` … `block9.flag99`.
struct ThousandFlags: FlagContainer {
    @FlagGroup("Block 0") var block0 = FlagBlock()
    @FlagGroup("Block 1") var block1 = FlagBlock()
    @FlagGroup("Block 2") var block2 = FlagBlock()
    @FlagGroup("Block 3") var block3 = FlagBlock()
    @FlagGroup("Block 4") var block4 = FlagBlock()
    @FlagGroup("Block 5") var block5 = FlagBlock()
    @FlagGroup("Block 6") var block6 = FlagBlock()
    @FlagGroup("Block 7") var block7 = FlagBlock()
    @FlagGroup("Block 8") var block8 = FlagBlock()
    @FlagGroup("Block 9") var block9 = FlagBlock()
}

/// 100 flags; of every 10, 4 `Bool`, 3 `Int` and 3 `String`.
struct FlagBlock: FlagContainer {
    @Flag("Block flag 0, a switch") var flag0 = false
    @Flag("Block flag 1, a switch") var flag1 = false
    @Flag("Block flag 2, a switch") var flag2 = false
    @Flag("Block flag 3, a switch") var flag3 = false
    @Flag("Block flag 4, a number") var flag4 = 4
    @Flag("Block flag 5, a number") var flag5 = 5
    @Flag("Block flag 6, a number") var flag6 = 6
    @Flag("Block flag 7, a text") var flag7 = "default 7"
    @Flag("Block flag 8, a text") var flag8 = "default 8"
    @Flag("Block flag 9, a text") var flag9 = "default 9"
    @Flag("Block flag 10, a switch") var flag10 = false
    @Flag("Block flag 11, a switch") var flag11 = false
    @Flag("Block flag 12, a switch") var flag12 = false
    @Flag("Block flag 13, a switch") var flag13 = false
    @Flag("Block flag 14, a number") var flag14 = 14
    @Flag("Block flag 15, a number") var flag15 = 15
    @Flag("Block flag 16, a number") var flag16 = 16
    @Flag("Block flag 17, a text") var flag17 = "default 17"
    @Flag("Block flag 18, a text") var flag18 = "default 18"
    @Flag("Block flag 19, a text") var flag19 = "default 19"
    @Flag("Block flag 20, a switch") var flag20 = false
    @Flag("Block flag 21, a switch") var flag21 = false
    @Flag("Block flag 22, a switch") var flag22 = false
    @Flag("Block flag 23, a switch") var flag23 = false
    @Flag("Block flag 24, a number") var flag24 = 24
    @Flag("Block flag 25, a number") var flag25 = 25
    @Flag("Block flag 26, a number") var flag26 = 26
    @Flag("Block flag 27, a text") var flag27 = "default 27"
    @Flag("Block flag 28, a text") var flag28 = "default 28"
    @Flag("Block flag 29, a text") var flag29 = "default 29"
    @Flag("Block flag 30, a switch") var flag30 = false
    @Flag("Block flag 31, a switch") var flag31 = false
    @Flag("Block flag 32, a switch") var flag32 = false
    @Flag("Block flag 33, a switch") var flag33 = false
    @Flag("Block flag 34, a number") var flag34 = 34
    @Flag("Block flag 35, a number") var flag35 = 35
    @Flag("Block flag 36, a number") var flag36 = 36
    @Flag("Block flag 37, a text") var flag37 = "default 37"
    @Flag("Block flag 38, a text") var flag38 = "default 38"
    @Flag("Block flag 39, a text") var flag39 = "default 39"
    @Flag("Block flag 40, a switch") var flag40 = false
    @Flag("Block flag 41, a switch") var flag41 = false
    @Flag("Block flag 42, a switch") var flag42 = false
    @Flag("Block flag 43, a switch") var flag43 = false
    @Flag("Block flag 44, a number") var flag44 = 44
    @Flag("Block flag 45, a number") var flag45 = 45
    @Flag("Block flag 46, a number") var flag46 = 46
    @Flag("Block flag 47, a text") var flag47 = "default 47"
    @Flag("Block flag 48, a text") var flag48 = "default 48"
    @Flag("Block flag 49, a text") var flag49 = "default 49"
    @Flag("Block flag 50, a switch") var flag50 = false
    @Flag("Block flag 51, a switch") var flag51 = false
    @Flag("Block flag 52, a switch") var flag52 = false
    @Flag("Block flag 53, a switch") var flag53 = false
    @Flag("Block flag 54, a number") var flag54 = 54
    @Flag("Block flag 55, a number") var flag55 = 55
    @Flag("Block flag 56, a number") var flag56 = 56
    @Flag("Block flag 57, a text") var flag57 = "default 57"
    @Flag("Block flag 58, a text") var flag58 = "default 58"
    @Flag("Block flag 59, a text") var flag59 = "default 59"
    @Flag("Block flag 60, a switch") var flag60 = false
    @Flag("Block flag 61, a switch") var flag61 = false
    @Flag("Block flag 62, a switch") var flag62 = false
    @Flag("Block flag 63, a switch") var flag63 = false
    @Flag("Block flag 64, a number") var flag64 = 64
    @Flag("Block flag 65, a number") var flag65 = 65
    @Flag("Block flag 66, a number") var flag66 = 66
    @Flag("Block flag 67, a text") var flag67 = "default 67"
    @Flag("Block flag 68, a text") var flag68 = "default 68"
    @Flag("Block flag 69, a text") var flag69 = "default 69"
    @Flag("Block flag 70, a switch") var flag70 = false
    @Flag("Block flag 71, a switch") var flag71 = false
    @Flag("Block flag 72, a switch") var flag72 = false
    @Flag("Block flag 73, a switch") var flag73 = false
    @Flag("Block flag 74, a number") var flag74 = 74
    @Flag("Block flag 75, a number") var flag75 = 75
    @Flag("Block flag 76, a number") var flag76 = 76
    @Flag("Block flag 77, a text") var flag77 = "default 77"
    @Flag("Block flag 78, a text") var flag78 = "default 78"
    @Flag("Block flag 79, a text") var flag79 = "default 79"
    @Flag("Block flag 80, a switch") var flag80 = false
    @Flag("Block flag 81, a switch") var flag81 = false
    @Flag("Block flag 82, a switch") var flag82 = false
    @Flag("Block flag 83, a switch") var flag83 = false
    @Flag("Block flag 84, a number") var flag84 = 84
    @Flag("Block flag 85, a number") var flag85 = 85
    @Flag("Block flag 86, a number") var flag86 = 86
    @Flag("Block flag 87, a text") var flag87 = "default 87"
    @Flag("Block flag 88, a text") var flag88 = "default 88"
    @Flag("Block flag 89, a text") var flag89 = "default 89"
    @Flag("Block flag 90, a switch") var flag90 = false
    @Flag("Block flag 91, a switch") var flag91 = false
    @Flag("Block flag 92, a switch") var flag92 = false
    @Flag("Block flag 93, a switch") var flag93 = false
    @Flag("Block flag 94, a number") var flag94 = 94
    @Flag("Block flag 95, a number") var flag95 = 95
    @Flag("Block flag 96, a number") var flag96 = 96
    @Flag("Block flag 97, a text") var flag97 = "default 97"
    @Flag("Block flag 98, a text") var flag98 = "default 98"
    @Flag("Block flag 99, a text") var flag99 = "default 99"
}

/// The payloads a server sends for `ThousandFlags`: two, each setting every
/// flag to a value the other does not, so applying them in turn changes all
/// 1,000 flags every time. Flat keys, as `flags.update(with:)` and the
/// hand-rolled baseline both read them.
enum FlagPayloadFixture {
    static let flagCount = 1_000

    /// The JSON of `variant` (0 or 1), sorted keys, no spaces: 27 KB.
    static func payload(_ variant: Int, for definitions: [FlagDefinition]) throws -> Data {
        var members: [String: Any] = [:]
        for (index, definition) in definitions.enumerated() {
            members[definition.key] = value(variant, index: index, kind: definition.type.kind)
        }
        return try JSONSerialization.data(withJSONObject: members, options: [.sortedKeys])
    }

    static func value(_ variant: Int, index: Int, kind: FlagType.Kind) -> any Sendable {
        switch kind {
        case .bool: variant == 0
        case .integer: (variant + 1) * 1_000 + index
        case .string: "variant \(variant == 0 ? "a" : "b") of flag \(index)"
        default: fatalError("not in the fixture")
        }
    }
}

/// The hand-written alternative to a flag pole, what a program without a
/// flag library writes: the flags' keys, descriptions, types and defaults in
/// a table, and their current values in a dictionary behind a `Mutex`.
/// An update parses with `JSONSerialization`, checks each value's type with
/// a cast and writes the accepted ones under one lock, so a reader sees all
/// of an update or none of it.
final class HandRolledFlags: Sendable {
    enum Kind: Sendable {
        case bool, integer, string
    }

    struct Definition: Sendable {
        var key: String
        var description: String
        var kind: Kind
        var defaultValue: any Sendable
    }

    /// What the listing gives for each flag.
    struct State: Sendable {
        var key: String
        var description: String
        var value: any Sendable
    }

    let definitions: [Definition]
    private let kinds: [String: Kind]
    private let values = Mutex<[String: any Sendable]>([:])

    init(_ definitions: [Definition]) {
        self.definitions = definitions
        kinds = Dictionary(uniqueKeysWithValues: definitions.map { ($0.key, $0.kind) })
    }

    /// The same table as a pole's definitions.
    convenience init(_ definitions: [FlagDefinition]) {
        self.init(
            definitions.map { definition in
                switch (definition.type.kind, definition.defaultValue) {
                case (.bool, .bool(let flag)): Definition(key: definition.key, description: definition.description, kind: .bool, defaultValue: flag)
                case (.integer, .signedInteger(let number)):
                    Definition(key: definition.key, description: definition.description, kind: .integer, defaultValue: Int(number))
                case (.string, .string(let text)): Definition(key: definition.key, description: definition.description, kind: .string, defaultValue: text)
                default: fatalError("not in the fixture")
                }
            })
    }

    /// Applies a payload of flat keys.
    /// - Returns: how many values were accepted.
    @discardableResult
    func update(with json: Data) throws -> Int {
        struct NotAnObject: Error {}
        guard let object = try JSONSerialization.jsonObject(with: json) as? [String: Any] else { throw NotAnObject() }
        var accepted: [String: any Sendable] = [:]
        accepted.reserveCapacity(object.count)
        for (key, raw) in object {
            switch kinds[key] {
            case .bool: if let flag = raw as? Bool { accepted[key] = flag }
            case .integer: if let number = raw as? Int { accepted[key] = number }
            case .string: if let text = raw as? String { accepted[key] = text }
            case nil: continue
            }
        }
        values.withLock { values in
            for (key, value) in accepted { values[key] = value }
        }
        return accepted.count
    }

    /// Every flag with its value, in declaration order.
    func all() -> [State] {
        values.withLock { values in
            definitions.map { State(key: $0.key, description: $0.description, value: values[$0.key] ?? $0.defaultValue) }
        }
    }
}
