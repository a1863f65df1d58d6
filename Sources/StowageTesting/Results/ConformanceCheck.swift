/// One requirement of the conformance suite, which a suite's `run(_:)`
/// runs on its own.
///
/// Parameterise a test over every case to see each requirement pass or fail
/// by name:
///
/// ```swift
/// @Test(arguments: ConformanceCheck.allCases)
/// func myStoreConforms(_ check: ConformanceCheck) async throws {
///     try await StorageConformanceSuite { MyStore() }.run(check)
/// }
/// ```
public enum ConformanceCheck: String, CaseIterable, Sendable, CustomStringConvertible {
    /// `Bool`, every integer width at its extremes, `Float` and `Double`
    /// (including -0.0, and infinity and NaN where the store keeps them).
    case roundTripOfScalars
    /// Strings: empty, Unicode with emoji and combining marks, NUL, line
    /// breaks, quotes and a 64 KB string, kept scalar for scalar.
    case roundTripOfStrings
    /// `Data`: empty, every byte value, and 64 KB.
    case roundTripOfData
    /// `Date` (to within a millisecond), `URL` and `UUID`.
    case roundTripOfFoundationValues
    /// Optionals: a wrapped value reads back; `nil` removes the key; `nil`
    /// inside a collection stays in it.
    case roundTripOfOptionals
    /// Arrays, sets and dictionaries with `String` keys, empty and nested.
    case roundTripOfCollections
    /// Enums with `String` and `Int` raw values.
    case roundTripOfRawRepresentables
    /// A `Codable` struct with nested struct, array, dictionary and optional fields.
    case roundTripOfCodables
    /// A key never written reads as absent on every path, and reading does not create it.
    case absentKeys
    /// Removing a key makes it absent on every path; removing an absent key is not an error.
    case removal
    /// Writing or removing one key never changes another, in this store or in another instance.
    case keyIndependence
    /// Empty, dotted, slashed, spaced, Unicode and 1,000-character keys are
    /// kept apart and read back.
    case unusualKeys
    /// One reference per store instance, key and value type.
    case referenceIdentity
    /// A write through any path is seen by every reference to the key, whatever its value type.
    case referenceCoherence
    /// A `changes` stream yields the current value, then every written value in order.
    case changeStream
    /// `observe` fires for each change, not for an equal value, and not after cancelling.
    case observers
    /// The store-wide `changes` stream reports every written key.
    case storeChangeStream
    /// Two streams on the same key or store each get every change; ending one leaves the other.
    case independentStreams
    /// A change made behind Stowage's back and announced by the store reaches
    /// references and observers; needs ``StorageConformanceSuite/Options/externalChange``.
    case externalChange
    /// `replaceStoredValue(forKey:expecting:with:)` replaces only when the
    /// current value is the expected one.
    case compareAndSwap
    /// Concurrent `modify` increments of one key lose no update.
    case concurrentModify
    /// Concurrent writers of distinct keys all find their values afterwards.
    case concurrentWritersOfDistinctKeys
    /// Reads racing writes only ever see whole values that some writer wrote.
    case readsDuringWrites
    /// Reading a value as the wrong type throws a `StorageError` naming the key and the type.
    case typeMismatchError
    /// A property wrapper reading a value of the wrong type yields its default and sets `lastError`.
    case wrapperFallback
    /// `replaceStoredValues(expecting:with:)` replaces every key or none.
    case multiKeyCompareAndSwap
    /// `storedEntries(.granted)` lists what was written and nothing removed, unless the store says it can not list.
    case listing

    /// A short lowercase name, as used in reports: "round trip of scalars".
    public var description: String {
        switch self {
        case .roundTripOfScalars: "round trip of scalars"
        case .roundTripOfStrings: "round trip of strings"
        case .roundTripOfData: "round trip of data"
        case .roundTripOfFoundationValues: "round trip of dates, URLs and UUIDs"
        case .roundTripOfOptionals: "round trip of optionals"
        case .roundTripOfCollections: "round trip of collections"
        case .roundTripOfRawRepresentables: "round trip of raw-representable enums"
        case .roundTripOfCodables: "round trip of Codable structs"
        case .absentKeys: "absent keys"
        case .removal: "removal"
        case .keyIndependence: "key independence"
        case .unusualKeys: "unusual keys"
        case .referenceIdentity: "reference identity"
        case .referenceCoherence: "reference coherence"
        case .changeStream: "change stream"
        case .observers: "observers"
        case .storeChangeStream: "store change stream"
        case .independentStreams: "independent streams"
        case .externalChange: "external change"
        case .compareAndSwap: "compare and swap"
        case .concurrentModify: "concurrent modify"
        case .concurrentWritersOfDistinctKeys: "concurrent writers of distinct keys"
        case .readsDuringWrites: "reads during writes"
        case .typeMismatchError: "type mismatch error"
        case .wrapperFallback: "wrapper fallback"
        case .multiKeyCompareAndSwap: "multi-key compare and swap"
        case .listing: "listing"
        }
    }

    /// What a conforming store must do, as one sentence.
    public var requirement: String {
        switch self {
        case .roundTripOfScalars:
            "Bool, every integer type at its minimum, maximum, zero and -1, Float and Double (tiny, huge, -0.0, "
                + "and infinity and NaN unless the options say the store can not keep them) read back equal after a write."
        case .roundTripOfStrings:
            "Strings read back with exactly the Unicode scalars written, including NUL, line breaks, quotes, "
                + "emoji, combining marks and 64 KB of text."
        case .roundTripOfData:
            "Data reads back byte for byte: empty, every byte value, and 64 KB."
        case .roundTripOfFoundationValues:
            "Dates read back to within a millisecond, and URLs and UUIDs read back equal."
        case .roundTripOfOptionals:
            "A wrapped optional reads back, writing nil removes the key, and nil inside a collection is kept."
        case .roundTripOfCollections:
            "Arrays, sets and dictionaries with String keys, empty and nested, read back equal."
        case .roundTripOfRawRepresentables:
            "Enums with String and Int raw values read back as the same case."
        case .roundTripOfCodables:
            "A Codable struct with nested struct, array, dictionary and optional fields reads back equal."
        case .absentKeys:
            "A key never written reads as absent through the store, value(forKey:as:) and a reference, and reading does not create it."
        case .removal:
            "Removing a key through the store, a reference or modify makes it absent everywhere, and removing an absent key succeeds."
        case .keyIndependence:
            "Writing or removing a key never changes another key, even one differing only in case or by a suffix, nor any key of another store instance."
        case .unusualKeys:
            "Empty, dotted, slashed, spaced, Unicode and 1,000-character keys are kept as distinct keys and read back."
        case .referenceIdentity:
            "Asking for the reference to the same store, key and type twice gives the identical object; another key or store instance gives another."
        case .referenceCoherence:
            "A write through a reference of one type, the store API or modify is seen by references of other types and by store.values."
        case .changeStream:
            "A changes stream yields the current value first, then each written value in order, nil for a removal."
        case .observers:
            "An observe handler runs for each change, not on registration, not for a write of an equal value, and not after its token is cancelled."
        case .storeChangeStream:
            "The store's changes stream reports every key written or removed."
        case .independentStreams:
            "Two streams on the same key or store both get every change, and cancelling one does not end the other."
        case .externalChange:
            "After a change made behind Stowage's back, the store's announcement makes an existing reference read the new value "
                + "and reaches observers within the change timeout."
        case .compareAndSwap:
            "replaceStoredValue(forKey:expecting:with:) replaces, and returns true, exactly when the current value equals the expected one."
        case .concurrentModify:
            "Concurrent modify increments of one key, through references of different types, end at exactly tasks times iterations."
        case .concurrentWritersOfDistinctKeys:
            "Every key written by concurrent writers of distinct keys holds its value afterwards."
        case .readsDuringWrites:
            "Reads racing writes only see whole values that some writer wrote, and the last value is some writer's last write."
        case .typeMismatchError:
            "Reading a value as a type it can not be (a string as Int, 300 as Int8) throws a StorageError naming the key and the type."
        case .wrapperFallback:
            "A Stored property reading a value of the wrong type yields its default, sets lastError, and leaves the stored value alone."
        case .multiKeyCompareAndSwap:
            "replaceStoredValues(expecting:with:) replaces every key when each holds the expected value, and none when any does not."
        case .listing:
            "storedEntries(_:) gives every key written with its value and no key removed, or throws a StorageError with code .unsupported."
        }
    }
}
