import Synchronization

/// What the tasks of the reads-during-writes check share: whether the
/// writers are done, and how many reads were made. A class, since an
/// `Atomic` can not be captured by the tasks on its own.
final class ReadWriteProgress: Sendable {
    private let writersDone = Atomic(false)
    private let reads = Atomic(0)

    /// Whether every writer has finished.
    var writersAreDone: Bool { writersDone.load(ordering: .acquiring) }

    /// How many reads were made.
    var readCount: Int { reads.load(ordering: .relaxed) }

    func markWritersDone() {
        writersDone.store(true, ordering: .releasing)
    }

    func countRead() {
        reads.add(1, ordering: .relaxed)
    }
}
