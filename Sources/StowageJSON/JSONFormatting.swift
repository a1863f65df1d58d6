/// How `JSONSerializer` lays out its output. Keys are sorted either way.
package enum JSONFormatting: Sendable, Hashable {
    /// One member or element per line, indented by two spaces per level, with
    /// `"key": value`, empty objects and arrays as `{}` and `[]`, and a final
    /// line feed, so files diff line by line.
    ///
    /// ```json
    /// {
    ///   "name": "Ada",
    ///   "tags": [
    ///     "a"
    ///   ]
    /// }
    /// ```
    case prettyPrinted
    /// No whitespace at all: `{"name":"Ada","tags":["a"]}`.
    case compact
}
