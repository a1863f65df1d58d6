import Stowage

extension JSONReader {
    /// Reads a number starting at `offset` (a '-' or a digit).
    ///
    /// The grammar is checked here byte by byte. An integer is accumulated on the
    /// way and kept exactly when it fits `Int64` or `UInt64`; every other number
    /// is converted by the standard library's correctly rounded `Double(_:)`
    /// from the validated text, which therefore holds nothing but JSON number
    /// syntax (no "nan", "inf" or hexadecimal forms can reach it).
    mutating func readNumber() throws(StorageError) -> StoredValue {
        let start = offset
        var index = offset
        let isNegative = bytes[index] == UInt8(ascii: "-")
        if isNegative { index += 1 }

        var magnitude: UInt64 = 0
        var magnitudeOverflowed = false
        let firstDigit = byte(at: index)
        if firstDigit == UInt8(ascii: "0") {
            index += 1
            if isDigit(byte(at: index)) {
                throw error("found a leading zero in a number", at: index - 1)
            }
        } else if isDigit(firstDigit) {
            while isDigit(byte(at: index)) {
                let digit = UInt64(bytes[index] &- UInt8(ascii: "0"))
                let (product, productOverflowed) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, sumOverflowed) = product.addingReportingOverflow(digit)
                magnitude = sum
                magnitudeOverflowed = magnitudeOverflowed || productOverflowed || sumOverflowed
                index += 1
            }
        } else {
            throw error("expected a digit after '-'", at: index)
        }

        var isInteger = true
        if byte(at: index) == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard isDigit(byte(at: index)) else {
                throw error("expected a digit after the decimal point", at: index)
            }
            while isDigit(byte(at: index)) { index += 1 }
        }
        let exponentMarker = byte(at: index)
        if exponentMarker == UInt8(ascii: "e") || exponentMarker == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            let sign = byte(at: index)
            if sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { index += 1 }
            guard isDigit(byte(at: index)) else {
                throw error("expected a digit in the exponent of a number", at: index)
            }
            while isDigit(byte(at: index)) { index += 1 }
        }
        offset = index

        if isInteger && !magnitudeOverflowed {
            if !isNegative {
                if let signed = Int64(exactly: magnitude) { return .signedInteger(signed) }
                return .unsignedInteger(magnitude)
            }
            if magnitude <= Int64.max.magnitude { return .signedInteger(-Int64(magnitude)) }
            if magnitude == Int64.min.magnitude { return .signedInteger(.min) }
        }

        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw error("found a number too large to be represented as a 64-bit floating-point number", at: start)
        }
        return .double(value)
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }
}
