/// Why a variable's text is not a value of the type read, before the store
/// adds the variable's name and, unless it is secret, the text itself.
struct EnvironmentTextProblem: Error {
    /// What the text should have been: "Int (a decimal or 0x hexadecimal integer)".
    var expected: String
    /// What is wrong with it, when more can be said: "beyond the range of 64-bit integers".
    var detail: String?
    var isOutOfRange = false
}
