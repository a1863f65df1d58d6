/// A group of flags: a property of a ``FlagContainer`` holding another
/// container, whose flags' keys start with the group's part.
///
/// ```swift
/// struct AppFlags: FlagContainer {
///     @FlagGroup("Search") var search = SearchFlags()       // keys "search.…"
///     @FlagGroup("Admin", key: .skipped) var admin = AdminFlags()   // keys as if declared here
/// }
/// ```
///
/// One group type may sit under several parents; each place gets its own keys.
@propertyWrapper
public struct FlagGroup<Group: FlagContainer>: Sendable {
    /// The group's flags.
    public let wrappedValue: Group
    let description: String
    let key: FlagGroupKey

    /// - Parameters:
    ///   - wrappedValue: the group's container; write a new one here (`SearchFlags()`).
    ///   - description: what the group holds, for lists and tools.
    ///   - key: how the group's part of its flags' keys is written.
    public init(wrappedValue: Group, _ description: String = "", key: FlagGroupKey = .automatic) {
        self.wrappedValue = wrappedValue
        self.description = description
        self.key = key
    }
}
