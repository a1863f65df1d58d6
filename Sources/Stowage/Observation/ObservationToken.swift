import StowageLocking

/// Keeps an observation alive; cancelling it, or letting it go, stops it.
///
/// ```swift
/// let token = reference.observe { value in print(value ?? 0) }
/// token.cancel()
/// ```
public final class ObservationToken: Sendable {
    private let cancellation: Locked<(@Sendable () -> Void)?>

    package init(_ cancellation: @escaping @Sendable () -> Void) {
        self.cancellation = Locked(cancellation)
    }

    /// Stops the observation; calling it again does nothing.
    public func cancel() {
        let cancellation = self.cancellation.withLock { stored in
            defer { stored = nil }
            return stored
        }
        cancellation?()
    }

    deinit {
        cancel()
    }
}
