@testable import Stowage
import StowageInMemory
import Testing

struct ReferenceKeyHashTests {
    /// Keys `==` calls equal must hash alike, or the table would keep two
    /// references for one key, and a write through one would leave the
    /// other's cache stale. Each pair differs in its bytes.
    @Test(arguments: [
        ("K", "\u{212A}"),  // the Kelvin sign's canonical form is the ASCII letter
        ("a;b", "a\u{037E}b"),  // the Greek question mark's is the semicolon
        ("caf\u{E9}", "cafe\u{301}"),  // precomposed against decomposed
        ("settings.caf\u{E9}.size", "settings.cafe\u{301}.size"),  // beyond a word
        ("\u{1E69}", "s\u{323}\u{307}"),  // two combining marks, reordered into canonical order
        ("\u{1E69}", "s\u{307}\u{323}"),
    ])
    func keysThatCompareEqualHashAlike(_ pair: (String, String)) {
        let (left, right) = pair
        #expect(left == right)
        #expect(Array(left.utf8) != Array(right.utf8))
        let hashing = ReferenceKeyHash()
        let storeID = ObjectIdentifier(InMemoryStore.self)
        #expect(hashing.hash(storeID: storeID, key: left) == hashing.hash(storeID: storeID, key: right))
    }

    /// The same through the registry: asking for either spelling gives the one live reference.
    @Test func equalKeysSpelledDifferentlyShareTheirReference() {
        let store = InMemoryStore()
        let ascii = store.reference(forKey: "temperature.K", as: Int.self)
        let kelvin = store.reference(forKey: "temperature.\u{212A}", as: Int.self)
        #expect(ascii === kelvin)
        ascii.value = 300
        #expect(kelvin.value == 300)
    }

    /// Every length from 0 to 40 bytes, so every path through the word and
    /// tail loads runs: keys that differ in one byte anywhere hash apart.
    @Test func aChangeOfAnyByteChangesTheHash() {
        let hashing = ReferenceKeyHash()
        let storeID = ObjectIdentifier(InMemoryStore.self)
        for length in 0...40 {
            let base = String(repeating: "a", count: length)
            let baseHash = hashing.hash(storeID: storeID, key: base)
            for position in 0..<length {
                var bytes = Array(base.utf8)
                bytes[position] = UInt8(ascii: "b")
                let changed = String(decoding: bytes, as: UTF8.self)
                #expect(hashing.hash(storeID: storeID, key: changed) != baseHash, "length \(length), byte \(position)")
            }
            // A key one byte longer, whose last byte is a zero, is another key too.
            #expect(hashing.hash(storeID: storeID, key: base + "\0") != baseHash, "length \(length)")
        }
    }

    /// The table uses the low bits: 100,000 keys that differ only in their
    /// numbers spread over 2^17 buckets about as evenly as random values do.
    /// Random values leave e^(-100,000/131,072), about 47%, of buckets empty;
    /// a hash that kept some low bits constant would leave far more.
    @Test func numberedKeysSpreadOverTheLowBits() {
        let hashing = ReferenceKeyHash()
        let storeID = ObjectIdentifier(InMemoryStore.self)
        let buckets = 1 << 17
        var used = [Bool](repeating: false, count: buckets)
        for index in 0..<100_000 {
            used[hashing.hash(storeID: storeID, key: "settings.item.\(index)") & (buckets - 1)] = true
        }
        let emptyShare = Double(used.count { !$0 }) / Double(buckets)
        #expect(abs(emptyShare - 0.466) < 0.01, "\(emptyShare)")
    }

    /// The store's identity is part of the hash: one key in two stores lands apart.
    @Test func theStoreChangesTheHash() {
        let hashing = ReferenceKeyHash()
        let first = InMemoryStore()
        let second = InMemoryStore()
        var same = 0
        for index in 0..<1_000 {
            let key = "key.\(index)"
            if hashing.hash(storeID: ObjectIdentifier(first), key: key) == hashing.hash(storeID: ObjectIdentifier(second), key: key) { same += 1 }
        }
        #expect(same == 0)
    }
}
