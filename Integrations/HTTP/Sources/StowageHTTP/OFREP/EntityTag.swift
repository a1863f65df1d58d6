/// A strong entity tag for a response body: a hash of its bytes, so two
/// bodies get one tag exactly when they are the same (to 64 bits), however
/// the flags, the context or the time made them.
///
/// A tag over the body, rather than a revision of the flags, stays right for
/// what a revision misses: the context (each client's evaluation differs),
/// and rules that read the time (`$flagd.timestamp`).
struct EntityTag: Sendable, Equatable {
    /// The header's value, quoted: `"3f2a9c…"`.
    let headerValue: String

    init(of bytes: some Sequence<UInt8>) {
        // FNV-1a, 64 bits: not a defence against anyone, only a cache's check.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        headerValue = "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    /// Whether an `If-None-Match` header names this tag: `*`, or a list of
    /// tags, weak or strong (the weak comparison RFC 9110 gives `If-None-Match`).
    func isNamed(byIfNoneMatch header: String) -> Bool {
        let trimmed = header.trimmingSpaces
        if trimmed == "*" { return true }
        return trimmed.split(separator: ",").contains { candidate in
            var tag = Substring(candidate).trimmingSpaces
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            return tag == headerValue
        }
    }
}

extension StringProtocol {
    /// The text without spaces and tabs at either end.
    var trimmingSpaces: Substring {
        let text = Substring(self)
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else { return "" }
        return text[first...last]
    }
}
