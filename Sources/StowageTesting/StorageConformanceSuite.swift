public import Stowage

/// The checks every store must pass: round trips of every built-in `Storable`
/// type, absent and unusual keys, reference identity and coherence,
/// observation, changes made behind Stowage's back, concurrency and errors.
///
/// It imports no test framework: it throws ``ConformanceFailure`` when a
/// check fails, so it runs under Swift Testing and XCTest alike. Each check
/// asks `makeStorage` for a fresh, empty store of its own.
///
/// ```swift
/// import StowageTesting
/// import Testing
///
/// @Test func myStoreConforms() async throws {
///     let report = try await StorageConformanceSuite { MyStore() }.run()
///     #expect(report.skipped.isEmpty, "\(report)")
/// }
///
/// // Or one check at a time, so each passes or fails by name:
/// @Test(arguments: StorageConformanceSuite<MyStore>.Check.allCases)
/// func conformance(_ check: StorageConformanceSuite<MyStore>.Check) async throws {
///     try await StorageConformanceSuite { MyStore() }.run(check)
/// }
/// ```
///
/// With XCTest:
///
/// ```swift
/// func testMyStoreConforms() async throws {
///     try await StorageConformanceSuite { MyStore() }.run()
/// }
/// ```
///
/// The suite never traps on a misbehaving store: thrown errors, wrong
/// values, missing notifications and timeouts all become issues in the report.
public struct StorageConformanceSuite<Storage: UnderlyingStorage>: Sendable {
    /// The checks of the suite; the same type for every store, so it can be
    /// named without a store type as ``ConformanceCheck``.
    public typealias Check = ConformanceCheck

    /// How the checks exercise the store.
    public let options: Options

    let makeStorage: @Sendable () throws -> Storage

    /// A suite for the stores `makeStorage` makes.
    /// - Parameters:
    ///   - options: what the store can keep and how to exercise it.
    ///   - makeStorage: returns a fresh, empty store, independent of every
    ///     other it returned (a new temporary file for a file store, say).
    ///     Called at least once per check.
    public init(options: Options = Options(), makeStorage: @escaping @Sendable () throws -> Storage) {
        self.options = options
        self.makeStorage = makeStorage
    }

    /// Runs every check, one after another.
    /// - Returns: the report, listing the passed and the skipped checks.
    /// - Throws: ``ConformanceFailure`` listing every failed check when any failed.
    @discardableResult
    public func run() async throws(ConformanceFailure) -> ConformanceReport {
        try await run(Check.allCases)
    }

    /// Runs one check.
    /// - Returns: the report: the check is either passed or skipped (with the reason).
    /// - Throws: ``ConformanceFailure`` with the check's issues when it failed.
    @discardableResult
    public func run(_ check: Check) async throws(ConformanceFailure) -> ConformanceReport {
        try await run([check])
    }

    /// Runs `checks`, one after another, in the given order.
    /// - Returns: the report, listing the passed and the skipped checks.
    /// - Throws: ``ConformanceFailure`` listing every failed check when any failed.
    @discardableResult
    public func run(_ checks: some Sequence<Check>) async throws(ConformanceFailure) -> ConformanceReport {
        var report = ConformanceReport(storeName: String(describing: Storage.self))
        for check in checks {
            await execute(check, into: &report)
        }
        guard report.isSuccessful else { throw ConformanceFailure(report: report) }
        return report
    }

    /// Runs one check and files its outcome.
    private func execute(_ check: Check, into report: inout ConformanceReport) async {
        if let reason = skipReason(for: check) {
            report.skipped.append(ConformanceReport.SkippedCheck(check: check, reason: reason))
            return
        }
        let recorder = IssueRecorder(check: check)
        do {
            try await perform(check, recorder)
        } catch let interruption as CheckInterruption {
            recorder.record(interruption.message)
        } catch {
            recorder.record("The check stopped early on an unexpected error: \(error)".endingSentence)
        }
        let issues = recorder.issues
        if issues.isEmpty {
            report.passed.append(check)
        } else {
            report.issues.append(contentsOf: issues)
        }
    }

    /// Why `check` can not run with these options, or `nil` when it can.
    private func skipReason(for check: Check) -> String? {
        switch check {
        case .externalChange where options.externalChange == nil:
            "Options.externalChange was not given, so the suite has no way to change a key behind Stowage's back; "
                + "give it to check that the store announces such changes."
        default:
            nil
        }
    }

    private func perform(_ check: Check, _ recorder: IssueRecorder) async throws {
        switch check {
        case .roundTripOfScalars: try checkRoundTripOfScalars(recorder)
        case .roundTripOfStrings: try checkRoundTripOfStrings(recorder)
        case .roundTripOfData: try checkRoundTripOfData(recorder)
        case .roundTripOfFoundationValues: try checkRoundTripOfFoundationValues(recorder)
        case .roundTripOfOptionals: try checkRoundTripOfOptionals(recorder)
        case .roundTripOfCollections: try checkRoundTripOfCollections(recorder)
        case .roundTripOfRawRepresentables: try checkRoundTripOfRawRepresentables(recorder)
        case .roundTripOfCodables: try checkRoundTripOfCodables(recorder)
        case .absentKeys: try checkAbsentKeys(recorder)
        case .removal: try checkRemoval(recorder)
        case .keyIndependence: try checkKeyIndependence(recorder)
        case .unusualKeys: try checkUnusualKeys(recorder)
        case .referenceIdentity: try checkReferenceIdentity(recorder)
        case .referenceCoherence: try checkReferenceCoherence(recorder)
        case .changeStream: try await checkChangeStream(recorder)
        case .observers: try await checkObservers(recorder)
        case .storeChangeStream: try await checkStoreChangeStream(recorder)
        case .independentStreams: try await checkIndependentStreams(recorder)
        case .externalChange: try await checkExternalChange(recorder)
        case .compareAndSwap: try checkCompareAndSwap(recorder)
        case .concurrentModify: try await checkConcurrentModify(recorder)
        case .concurrentWritersOfDistinctKeys: try await checkConcurrentWritersOfDistinctKeys(recorder)
        case .readsDuringWrites: try await checkReadsDuringWrites(recorder)
        case .typeMismatchError: try checkTypeMismatchError(recorder)
        case .wrapperFallback: try checkWrapperFallback(recorder)
        case .multiKeyCompareAndSwap: try checkMultiKeyCompareAndSwap(recorder)
        case .listing: try checkListing(recorder)
        }
    }

    /// A new store from `makeStorage`.
    /// - Throws: ``CheckInterruption`` when `makeStorage` throws: the check can not start.
    func freshStorage() throws(CheckInterruption) -> Storage {
        do {
            return try makeStorage()
        } catch {
            throw CheckInterruption("makeStorage threw an error, so the check could not run: \(error)".endingSentence)
        }
    }
}
