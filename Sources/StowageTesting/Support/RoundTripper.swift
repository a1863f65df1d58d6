#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Stowage

/// Writes values through a reference and reads each back along two other
/// paths (and from a reopened store, when the suite can reopen one),
/// recording every value that does not come back as written.
///
/// Each value gets its own key, `prefix.0`, `prefix.1`, and so on, so that the
/// message can name it and the store under test can be inspected.
struct RoundTripper<Storage: UnderlyingStorage> {
    let storage: Storage
    let reopen: (@Sendable (Storage) throws -> Storage)?
    let recorder: IssueRecorder
    let keyPrefix: String
    private var keyCount = 0

    init(storage: Storage, reopen: (@Sendable (Storage) throws -> Storage)?, recorder: IssueRecorder, keyPrefix: String) {
        self.storage = storage
        self.reopen = reopen
        self.recorder = recorder
        self.keyPrefix = keyPrefix
    }

    /// Checks that `value` reads back equal.
    mutating func expect<Value: Storable & Equatable>(_ value: Value, named name: String? = nil) {
        expect(value, named: name, matches: ==)
    }

    /// Checks that `value` reads back as a value `matches` accepts.
    ///
    /// The write goes through a reference that is released before the reads,
    /// so that `value(forKey:as:)` can not answer from that reference's cache:
    /// both reads reach the store.
    /// - Parameters:
    ///   - name: how messages call the value ("Int64.min"); by default its type and description.
    ///   - matches: whether the value read (first) stands for the value written (second).
    mutating func expect<Value: Storable>(_ value: Value, named name: String? = nil, matches: (Value, Value) -> Bool) {
        let key = "\(keyPrefix).\(keyCount)"
        keyCount += 1
        let written = String(conformanceDescribing: value)
        let label = name.map { "\($0) (\(written))" } ?? "\(Value.self) \(written)"
        let wrote: Void? = recorder.attempt("Writing \(label) through reference(forKey: \"\(key)\", as: \(Value.self).self).set(_:)") {
            try Self.writeThroughReference(value, forKey: key, in: storage)
        }
        guard wrote != nil else { return }
        let context = "After writing \(label) under key \"\(key)\""

        if let stored = recorder.attempt("\(context), storedValue(forKey:)", { try storage.storedValue(forKey: key, .granted) }) {
            if let stored {
                do {
                    let read = try Value(storedValue: stored)
                    recorder.expect(
                        matches(read, value),
                        "\(context), storedValue(forKey:) gave \(String(conformanceDescribing: stored)), which reads as "
                            + "\(String(conformanceDescribing: read)); expected \(written)."
                    )
                } catch {
                    recorder.record(
                        "\(context), storedValue(forKey:) gave \(String(conformanceDescribing: stored)), which could not be read "
                            + "as \(Value.self): \(error)".endingSentence
                    )
                }
            } else {
                recorder.record("\(context), storedValue(forKey:) returned nil; expected the value written.")
            }
        }

        if let read = recorder.attempt("\(context), value(forKey:as: \(Value.self).self)", { try storage.value(forKey: key, as: Value.self) }) {
            if let read {
                recorder.expect(
                    matches(read, value),
                    "\(context), value(forKey:as: \(Value.self).self) returned \(String(conformanceDescribing: read)); expected \(written)."
                )
            } else {
                recorder.record("\(context), value(forKey:as: \(Value.self).self) returned nil; expected \(written).")
            }
        }
        if let reopen {
            expectPersisted(value, forKey: key, written: written, context: context, reopen: reopen, matches: matches)
        }
    }

    /// Reads `key` from a store reopened over the same data: what was
    /// persisted, which a store that encodes values (a file) may have changed.
    private func expectPersisted<Value: Storable>(
        _ value: Value, forKey key: String, written: String, context: String,
        reopen: (Storage) throws -> Storage, matches: (Value, Value) -> Bool
    ) {
        let read = recorder.attempt("\(context), reopening the store and reading value(forKey:as: \(Value.self).self)") {
            try reopen(storage).value(forKey: key, as: Value.self)
        }
        guard let read else { return }
        if let read {
            recorder.expect(
                matches(read, value),
                "\(context), a reopened store read \(String(conformanceDescribing: read)); expected \(written)."
            )
        } else {
            recorder.record("\(context), a reopened store read nil; expected \(written).")
        }
    }

    /// Writes through a reference that is released on return, as nothing else holds it.
    @inline(never)
    private static func writeThroughReference<Value: Storable>(_ value: Value, forKey key: String, in storage: Storage) throws {
        try storage.reference(forKey: key, as: Value.self).set(value)
    }
}

/// Equality that tells -0.0 from 0.0 and takes NaN as equal to NaN, since
/// a round trip must keep the sign and may keep any NaN.
func isIdentical<Number: FloatingPoint>(_ read: Number, _ written: Number) -> Bool {
    if read.isNaN || written.isNaN { return read.isNaN && written.isNaN }
    return read == written && read.sign == written.sign
}

/// Equality scalar for scalar, stricter than `String`'s canonical
/// equivalence: a store must not normalise "e" plus a combining accent into "é".
func hasSameScalars(_ read: String, _ written: String) -> Bool {
    read.unicodeScalars.elementsEqual(written.unicodeScalars)
}

/// Equality to within a millisecond, the precision a text store keeps.
func isWithinAMillisecond(_ read: Date, _ written: Date) -> Bool {
    abs(read.timeIntervalSince(written)) <= 0.001
}
