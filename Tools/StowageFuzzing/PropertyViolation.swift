/// A property a fuzz check found broken for one input: a round trip that did
/// not hold, or a result that contradicts what the code promises.
///
/// A check throws it instead of trapping, so the test suite that replays the
/// corpus reports it as a failed expectation; the fuzzer executable turns it
/// into a crash, which is what makes libFuzzer keep the input.
package struct PropertyViolation: Error, CustomStringConvertible {
    package var description: String

    package init(_ description: String) {
        self.description = description
    }
}
