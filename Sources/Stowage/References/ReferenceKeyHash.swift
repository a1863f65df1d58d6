/// The hash the reference registry's table finds a (store, key) pair by.
///
/// `String`'s own hash is SipHash over the key's canonical (NFC) UTF-8:
/// measured, some 320 instructions for a short key, a fifth of making a
/// reference and the largest part of finding a live one. This one reads the
/// same canonical bytes a word at a time, with one 64 × 64-bit multiply
/// folded to 64 bits per word, in about 75. Keys that `==` calls equal hash
/// alike, as the table needs: an ASCII key is its own canonical form, and any
/// other key is hashed from the canonical form the standard library makes,
/// so `"K"` and `"\u{212A}"` (the Kelvin sign, which `==` calls equal) meet.
///
/// The seed is random for each process and is mixed into every word, so keys
/// chosen to collide can not be planned from outside the process. It is not
/// SipHash, whose guarantee is cryptographic, but what it guards is the table
/// of live references, which only a program's own calls fill.
struct ReferenceKeyHash {
    private let seed = UInt64.random(in: .min ... .max)

    /// The hash of `key` in the store identified by `storeID`.
    @inline(__always)
    func hash(storeID: ObjectIdentifier, key: String) -> Int {
        let start = seed ^ UInt64(UInt(bitPattern: storeID))
        let asciiHash = key.utf8.withContiguousStorageIfAvailable { utf8 -> UInt64? in
            let (hash, orOfWords) = Self.hash(UnsafeRawBufferPointer(utf8), start: start)
            return orOfWords & 0x8080_8080_8080_8080 == 0 ? hash : nil
        }
        if let hash = asciiHash ?? nil { return Int(truncatingIfNeeded: hash) }
        return key._nfcCodeUnits.withUnsafeBytes { Int(truncatingIfNeeded: Self.hash($0, start: start).hash) }
    }

    /// The hash of `bytes`, and every word of them or'ed together, from which
    /// the caller tells whether any byte has its high bit set (is not ASCII).
    @inline(__always)
    private static func hash(_ bytes: UnsafeRawBufferPointer, start: UInt64) -> (hash: UInt64, orOfWords: UInt64) {
        let count = bytes.count
        var state = start ^ UInt64(count)
        var orOfWords: UInt64 = 0
        var offset = 0
        while count &- offset >= 8 {
            let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            orOfWords |= word
            state = fold(state ^ word, 0xA076_1D64_78BD_642F)
            offset &+= 8
        }
        // The last 0 to 7 bytes, in at most three loads, none past the end.
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        if count &- offset >= 4 {
            tail = UInt64(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            shift = 32
            offset &+= 4
        }
        if count &- offset >= 2 {
            tail |= UInt64(bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self)) << shift
            shift &+= 16
            offset &+= 2
        }
        if count &- offset >= 1 {
            tail |= UInt64(bytes[offset]) << shift
        }
        orOfWords |= tail
        return (fold(state ^ tail, 0xE703_7ED1_A0B4_28DB), orOfWords)
    }

    /// The two halves of the full product, xor'ed: every bit of either factor reaches the low bits the table uses.
    @inline(__always)
    private static func fold(_ value: UInt64, _ multiplier: UInt64) -> UInt64 {
        let product = value.multipliedFullWidth(by: multiplier)
        return product.high ^ product.low
    }
}
