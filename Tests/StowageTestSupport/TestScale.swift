import StowageSanitizerProbe

/// How large or long a test that is large or long for its own sake runs:
/// in full in a plain build, smaller under ThreadSanitizer or
/// AddressSanitizer. They slow every access 5 to 15 times, and find a race
/// or a bad access when it happens, whatever the size; the plain build, which
/// `swift test` makes, keeps the full size, where size itself is the point.
public enum TestScale {
    /// Whether this build is sanitized, as the compiler knows it.
    public static let isSanitized = stowage_probe_built_with_sanitizer()

    /// `full` in a plain build, `sanitized` under a sanitizer.
    public static func choose<Value>(full: Value, sanitized: Value) -> Value {
        isSanitized ? sanitized : full
    }
}
