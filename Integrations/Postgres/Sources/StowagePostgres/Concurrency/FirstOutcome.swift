/// The outcome of a race, given once, by whichever side finishes first: an
/// operation, or its deadline. Its waiters, any number of them, do not
/// wait for the loser.
typealias FirstOutcome<Value: Sendable> = SharedOutcome<Value, any Error>
