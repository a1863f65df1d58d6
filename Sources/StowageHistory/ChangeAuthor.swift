/// Who the current task's writes are made for, so that a store that keeps a
/// history of changes (the PostgreSQL store) records a person rather than a
/// program: the user of an admin page, an operator running a tool, a deploy job.
///
/// ```swift
/// try ChangeAuthor.$name.withValue("alice@example.com") {
///     try store.set(true, forKey: "new-checkout")
/// }
/// ```
///
/// A store reads it when the write is made, not when it is committed, so a
/// write queued behind others keeps its author. Stores without a history ignore it.
public enum ChangeAuthor {
    /// The author of writes made inside `$name.withValue(_:operation:)`; `nil` outside.
    @TaskLocal public static var name: String?
}
