extension JSONWriter {
    /// Writes an integer exactly, from its magnitude and sign, so `Int64.min` needs no special case.
    mutating func writeInteger(_ magnitude: UInt64, isNegative: Bool) {
        if isNegative { append(UInt8(ascii: "-")) }
        // UInt64.max has 20 digits.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var remaining = magnitude
            var start = digits.count
            repeat {
                let (quotient, remainder) = remaining.quotientAndRemainder(dividingBy: 10)
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: remainder)
                remaining = quotient
            } while remaining != 0
            append(UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Writes a finite double in its shortest round-trip form.
    ///
    /// Swift's `description` gives that form, with an exponent like `1e+100`,
    /// `1e-05` or `5e-324` that JSON accepts as it is. A whole number comes
    /// out as `2.0`; the check for '.' and 'e' guarantees a double is never
    /// written like an integer, whatever the standard library does in future.
    mutating func writeDouble(_ value: Double) {
        var text = value.description
        text.withUTF8 { utf8 in
            append(utf8)
            if !utf8.contains(UInt8(ascii: ".")) && !utf8.contains(UInt8(ascii: "e")) && !utf8.contains(UInt8(ascii: "E")) {
                appendASCII(".0")
            }
        }
    }
}
