/// One fuzz target's checks over an input of arbitrary bytes.
///
/// Nothing the code under test does with the bytes may trap; beyond that, a
/// check throws `PropertyViolation` when a guarantee fails. The libFuzzer
/// executables and the tests that replay the committed corpus run the same
/// `check(_:)`, so an input the fuzzer found is replayed by exactly the code
/// that found it.
package protocol FuzzCheck: Sendable {
    /// The target's name: its executable runs it, and its corpus is
    /// `Tools/Fuzz/Corpus/<name>` and its regression inputs `Tools/Fuzz/Regressions/<name>`.
    static var name: String { get }

    init()

    /// Runs the code under test over `input` and checks what it promises.
    func check(_ input: [UInt8]) throws(PropertyViolation)
}
