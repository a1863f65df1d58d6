#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Stowage

extension EnvironmentStore {
    /// The variables of `source` with the `.env` file merged in, by the file's precedence.
    static func loadVariables(from source: Source, dotEnvFile: DotEnvFile?) throws(StorageError) -> [String: String] {
        let environment: [String: String] =
            switch source {
            case .processEnvironment: ProcessEnvironment.variables()
            case .variables(let variables): variables
            }
        guard let dotEnvFile else { return environment }
        guard let text = try readText(of: dotEnvFile) else { return environment }
        let overrides = dotEnvFile.overridesEnvironment
        let path = dotEnvFile.url.path(percentEncoded: false)
        let lookup = { (name: String, assignedSoFar: [String: String]) in
            overrides ? (assignedSoFar[name] ?? environment[name]) : (environment[name] ?? assignedSoFar[name])
        }
        let assignments: [DotEnvParser.Assignment]
        if dotEnvFile.skipsMalformedLines {
            let parsed = DotEnvParser.parseSkippingMalformedLines(text, lookup: lookup)
            for skipped in parsed.skippedLines {
                StorageError(
                    code: .invalidDotEnv, reason: "the .env file \(path): line \(skipped.line) was skipped: \(skipped.problem).",
                    storeName: storeName(dotEnvFile: dotEnvFile)
                ).report()
            }
            assignments = parsed.assignments
        } else {
            do { assignments = try DotEnvParser.parse(text, lookup: lookup) } catch {
                throw StorageError(code: .invalidDotEnv, reason: "the .env file \(path) has a syntax error on line \(error.line): \(error.problem).")
            }
        }
        var merged = environment
        for assignment in assignments where overrides || environment[assignment.name] == nil {
            merged[assignment.name] = assignment.value
        }
        return merged
    }

    /// The file's text, or `nil` for a missing file that is not required.
    private static func readText(of file: DotEnvFile) throws(StorageError) -> String? {
        let path = file.url.path(percentEncoded: false)
        let bytes: [UInt8]
        switch DotEnvFileReader.bytes(atPath: path) {
        case .success(let read):
            bytes = read
        case .failure(let failure) where failure.isMissingFile && !file.isRequired:
            return nil
        case .failure(let failure):
            let reason =
                failure.isMissingFile
                ? "the .env file \(path) does not exist, and the store was told it is required."
                : "the .env file \(path) could not be read: \(failure)."
            throw StorageError(code: .storeFailure, reason: reason, underlyingError: failure)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw StorageError(code: .invalidDotEnv, reason: "the .env file \(path) is not UTF-8 text.")
        }
        return text
    }
}
