/// The bucket `fractional` puts a value in, as flagd's evaluators compute
/// it: the value in canonical CBOR (RFC 8949 §4.2.3: shortest integer and
/// float forms, map keys shortest first), hashed with MurmurHash3 (x86,
/// 32 bits, seed 0), scaled to the sum of the weights.
enum FractionalBucket {
    /// The bucket of `value` among `totalWeight` (at most `Int32.max`).
    static func bucket(of value: LogicValue, totalWeight: UInt64) -> UInt64 {
        var bytes: [UInt8] = []
        encode(value, into: &bytes)
        return (UInt64(murmurHash3(bytes)) * totalWeight) >> 32
    }

    /// Canonical CBOR of a JSON value; a whole number within 64 bits is an integer, as flagd normalizes it.
    static func encode(_ value: LogicValue, into bytes: inout [UInt8]) {
        switch value {
        case .null: bytes.append(0xF6)
        case .bool(let bool): bytes.append(bool ? 0xF5 : 0xF4)
        case .number(let number):
            if number.rounded(.towardZero) == number, number >= -0x1p63, number < 0x1p64 {
                if number >= 0 {
                    header(major: 0, UInt64(number), into: &bytes)
                } else {
                    // -1 - n, computed without overflow for n = -2^63.
                    header(major: 1, UInt64(-(number + 1)), into: &bytes)
                }
            } else {
                encodeFloat(number, into: &bytes)
            }
        case .string(let string):
            let utf8 = Array(string.utf8)
            header(major: 3, UInt64(utf8.count), into: &bytes)
            bytes += utf8
        case .array(let elements):
            header(major: 4, UInt64(elements.count), into: &bytes)
            for element in elements { encode(element, into: &bytes) }
        case .object(let entries):
            header(major: 5, UInt64(entries.count), into: &bytes)
            let encoded = entries.map { key, value -> (key: [UInt8], value: LogicValue) in
                var keyBytes: [UInt8] = []
                encode(.string(key), into: &keyBytes)
                return (keyBytes, value)
            }
            for entry in encoded.sorted(by: { $0.key.count != $1.key.count ? $0.key.count < $1.key.count : $0.key.lexicographicallyPrecedes($1.key) }) {
                bytes += entry.key
                encode(entry.value, into: &bytes)
            }
        }
    }

    private static func header(major: UInt8, _ argument: UInt64, into bytes: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case ..<24: bytes.append(type | UInt8(argument))
        case ...0xFF: bytes += [type | 24, UInt8(argument)]
        case ...0xFFFF: bytes += [type | 25] + bigEndian(argument, count: 2)
        case ...0xFFFF_FFFF: bytes += [type | 26] + bigEndian(argument, count: 4)
        default: bytes += [type | 27] + bigEndian(argument, count: 8)
        }
    }

    /// The shortest of half, single and double precision that holds `number` exactly.
    private static func encodeFloat(_ number: Double, into bytes: inout [UInt8]) {
        if number.isNaN { return bytes += [0xF9, 0x7E, 0x00] }
        if let bits = halfBits(of: number) { return bytes += [0xF9] + bigEndian(UInt64(bits), count: 2) }
        if Double(Float(number)) == number { return bytes += [0xFA] + bigEndian(UInt64(Float(number).bitPattern), count: 4) }
        bytes += [0xFB] + bigEndian(number.bitPattern, count: 8)
    }

    /// IEEE 754 half-precision bits of `number`, when it is exactly one.
    private static func halfBits(of number: Double) -> UInt16? {
        if number.isInfinite { return number < 0 ? 0xFC00 : 0x7C00 }
        if number == 0 { return number.sign == .minus ? 0x8000 : 0 }
        let sign: UInt16 = number.sign == .minus ? 0x8000 : 0
        let magnitude = abs(number)
        let exponent = Int(magnitude.exponent)
        if exponent >= -14 && exponent <= 15 {
            // Normal: 10 bits of significand.
            let scaled = magnitude / Double(sign: .plus, exponent: exponent, significand: 1) - 1
            let fraction = scaled * 1024
            guard fraction == fraction.rounded() else { return nil }
            return sign | UInt16(exponent + 15) << 10 | UInt16(fraction)
        }
        if exponent >= -24 && exponent < -14 {
            // Subnormal: multiples of 2^-24.
            let units = magnitude * 0x1p24
            guard units == units.rounded() else { return nil }
            return sign | UInt16(units)
        }
        return nil
    }

    private static func bigEndian(_ value: UInt64, count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(count - 1 - $0))) }
    }

    /// MurmurHash3, x86 32-bit, seed 0.
    static func murmurHash3(_ bytes: [UInt8]) -> UInt32 {
        let (c1, c2): (UInt32, UInt32) = (0xCC9E_2D51, 0x1B87_3593)
        var hash: UInt32 = 0
        let blockCount = bytes.count / 4
        for block in 0..<blockCount {
            let i = block * 4
            var k = UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
            k = (k &* c1).rotatedLeft(15) &* c2
            hash ^= k
            hash = hash.rotatedLeft(13) &* 5 &+ 0xE654_6B64
        }
        var k: UInt32 = 0
        let tail = blockCount * 4
        let remaining = bytes.count & 3
        if remaining >= 3 { k ^= UInt32(bytes[tail + 2]) << 16 }
        if remaining >= 2 { k ^= UInt32(bytes[tail + 1]) << 8 }
        if remaining >= 1 {
            k ^= UInt32(bytes[tail])
            hash ^= (k &* c1).rotatedLeft(15) &* c2
        }
        hash ^= UInt32(truncatingIfNeeded: bytes.count)
        hash ^= hash >> 16
        hash = hash &* 0x85EB_CA6B
        hash ^= hash >> 13
        hash = hash &* 0xC2B2_AE35
        hash ^= hash >> 16
        return hash
    }
}

extension UInt32 {
    fileprivate func rotatedLeft(_ count: UInt32) -> UInt32 { self << count | self >> (32 - count) }
}
