/// An `application/x-www-form-urlencoded` body, read strictly: a malformed
/// one is refused as a whole rather than half understood.
enum AdminForm {
    struct Malformed: Error {}

    static func fields(of body: some Collection<UInt8>) throws(Malformed) -> [String: String] {
        var fields: [String: String] = [:]
        guard !body.isEmpty else { return fields }
        for pair in body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty else { throw Malformed() }
            let name = try decode(parts[0])
            guard fields[name] == nil else { throw Malformed() }
            fields[name] = try decode(parts[1])
        }
        return fields
    }

    private static func decode(_ bytes: some Collection<UInt8>) throws(Malformed) -> String {
        var decoded: [UInt8] = []
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                let high = bytes.index(after: index)
                guard high != bytes.endIndex, bytes.index(after: high) != bytes.endIndex,
                    let h = HexDigit.value(bytes[high]), let l = HexDigit.value(bytes[bytes.index(after: high)])
                else { throw Malformed() }
                decoded.append(h << 4 | l)
                index = bytes.index(high, offsetBy: 2)
            } else {
                decoded.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index = bytes.index(after: index)
            }
        }
        guard let text = String(validating: decoded, as: UTF8.self) else { throw Malformed() }
        return text
    }
}
