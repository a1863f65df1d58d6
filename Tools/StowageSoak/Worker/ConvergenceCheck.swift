import Foundation
import Stowage
import StowageJSON
import StowageJSONFile

/// After every process has stopped writing: each store of this process must
/// come to show exactly what the file holds, through its own change
/// detection (no `reload()`), within a few seconds.
struct ConvergenceCheck {
    let file: String
    let flat: JSONFileStore
    let nested: JSONFileStore
    let problems: ErrorLog
    var limit: Duration = .seconds(10)

    /// The keys every process shares, read through fresh references of both stores.
    private var sharedKeys: [String] {
        (0..<SoakKeys.counterCount).map(SoakKeys.counter) + (0..<SoakKeys.accountCount).map(SoakKeys.account)
            + (0..<SoakKeys.sharedCount).map(SoakKeys.shared) + (0..<SoakKeys.editorTemporaryCount).map(SoakKeys.externalTemporary)
            + [SoakKeys.transfers, SoakKeys.externalGeneration, SoakKeys.externalCounter, SoakKeys.externalNote]
    }

    /// - Returns: how long the stores took to agree with the file, or `nil` if they never did.
    func run(ownKeys: [OwnKey], expected: [String: StoredValue?]) -> Int? {
        guard let bytes = RawFile.read(file), case .dictionary(let members)? = try? JSONParser().parse(bytes) else {
            problems.record("invariant: the final file could not be read or parsed")
            return nil
        }
        let wrappers = ExternalSettings()
        let start = ContinuousClock.now
        var differences: [String] = []
        repeat {
            differences = []
            for key in sharedKeys {
                let inFile = members[key]
                if flat.storedValue(forKey: key, .granted) != inFile { differences.append("flat store's \(key)") }
                if nested.storedValue(forKey: key, .granted) != inFile { differences.append("nested store's \(key)") }
            }
            for counter in 0..<SoakKeys.counterCount {
                let inFile = members[SoakKeys.counter(counter)].flatMap { try? Int(storedValue: $0) } ?? 0
                if JSONFileStorage<Int>(wrappedValue: 0, SoakKeys.counter(counter)).wrappedValue != inFile {
                    differences.append("flat wrapper of \(SoakKeys.counter(counter))")
                }
            }
            if wrappers.generation != members[SoakKeys.externalGeneration].flatMap({ try? Int(storedValue: $0) }) ?? 0 {
                differences.append("wrapper of \(SoakKeys.externalGeneration)")
            }
            for own in ownKeys where own.read() != (expected[own.key] ?? nil) {
                differences.append("own key \(own.key)")
            }
            if differences.isEmpty { return Int((ContinuousClock.now - start) / .milliseconds(1)) }
            Thread.sleep(forTimeInterval: 0.02)
        } while ContinuousClock.now - start < limit
        problems.record(
            "invariant: after \(limit) the stores still differ from the final file in \(differences.count) places: \(differences.prefix(8).joined(separator: ", "))"
        )
        return nil
    }
}
