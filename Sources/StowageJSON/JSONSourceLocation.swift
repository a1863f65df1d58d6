/// A place in JSON text as a person finds it in an editor: 1-based line and column.
///
/// Lines are counted by line feeds (a carriage return before one belongs to the
/// line it ends). Columns count Unicode scalars, so a key after "é" is where
/// an editor shows it; a UTF-8 byte order mark at the start is not counted.
package struct JSONSourceLocation: Hashable, Sendable, CustomStringConvertible {
    package var line: Int
    package var column: Int

    /// Makes a location from a 1-based line and column.
    package init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// "line 3, column 14", as error messages say it.
    package var description: String { "line \(line), column \(column)" }

    /// The location of the byte at `offset` in `bytes`.
    ///
    /// Only computed for errors and duplicate keys, so it scans from the start
    /// instead of making the parser count lines as it goes.
    init(offset: Int, in bytes: UnsafeBufferPointer<UInt8>) {
        self = Self.locations(ofSortedOffsets: [offset], in: bytes)[0]
    }

    /// The locations of several offsets, given in ascending order, in one scan.
    static func locations(ofSortedOffsets offsets: [Int], in bytes: UnsafeBufferPointer<UInt8>) -> [JSONSourceLocation] {
        var locations: [JSONSourceLocation] = []
        locations.reserveCapacity(offsets.count)
        let byteOrderMarkLength = JSONReader.byteOrderMarkLength(of: bytes)
        var line = 1
        var column = 1
        var index = byteOrderMarkLength
        for offset in offsets {
            let end = min(offset, bytes.count)
            while index < end {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else if byte & 0b1100_0000 != 0b1000_0000 {
                    // Continuation bytes belong to the scalar their lead byte started.
                    column += 1
                }
                index += 1
            }
            locations.append(JSONSourceLocation(line: line, column: column))
        }
        return locations
    }
}
