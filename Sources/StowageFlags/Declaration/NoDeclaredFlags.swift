/// A container that declares no flags, for a pole that serves flag
/// definitions alone: a service whose flags are all configured in flagd's
/// format (sent by ``FlagPole/update(with:mode:)-(Sequence<UInt8>,_)``, or
/// kept in a fleet's shared store) and read by key or by other programs.
///
/// ```swift
/// let flags = try FlagPole(NoDeclaredFlags(), overrides: InMemoryStore(), remote: fleetStore)
/// try flags.update(with: Data(#"{"flags": {"new-checkout": {"state": "ENABLED", …}}}"#.utf8))
/// let details = flags.details(forKey: "new-checkout", for: context)
/// ```
public struct NoDeclaredFlags: FlagContainer {
    public init() {}
}
