/// Stops a check that can not go on (its store could not be made, say); the
/// suite records the message as an issue of the check.
struct CheckInterruption: Error, Sendable {
    let message: String

    init(_ message: String) {
        self.message = message
    }
}
