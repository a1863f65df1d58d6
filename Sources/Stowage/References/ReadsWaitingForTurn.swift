import StowageLocking

/// How many reads of each reference wait for another read's turn to fill the
/// cache (see `StorageReference.readAndCache()`).
///
/// Tests that order reads against a paused store read it to know a read is
/// queued, instead of sleeping and hoping it is. Only a read that finds the
/// turn taken touches it, so an uncontended read never pays for it.
package final class ReadsWaitingForTurn: Sendable {
    package static let shared = ReadsWaitingForTurn()

    private let counts = Locked<[ObjectIdentifier: Int]>([:])

    private init() {}

    func add(_ change: Int, for core: AnyObject) {
        counts.withLock { counts in
            let count = counts[ObjectIdentifier(core), default: 0] + change
            counts[ObjectIdentifier(core)] = count == 0 ? nil : count
        }
    }

    /// The reads of `reference` waiting now.
    package func count<Storage, Value>(for reference: StorageReference<Storage, Value>) -> Int {
        counts.withLock { $0[ObjectIdentifier(reference.core)] ?? 0 }
    }
}

extension StorageReference {
    /// Which of the `ParkingLot`'s pairs this reference's readers wait on, for
    /// tests that need two references sharing one.
    package var storeReadTurnParkingPair: Int { ParkingLot.pairIndex(for: core) }
}
